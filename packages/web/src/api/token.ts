/** Where the tab keeps its token: `sessionStorage`, so it lives as long as the tab. */
const STORAGE_KEY = 'parley.token';

/** What `takeToken` needs of the browser, so it can be tested without one. */
export type TokenPlace = {
  location: { href: string };
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  replaceUrl: (url: string) => void;
};

/**
 * The bearer token of this tab. Opened as `/?token=…` (what `parley serve`
 * prints), the token is kept for the tab and dropped from the address bar,
 * so it is not left in the history or shared with a copied link; later
 * loads of the tab read it back.
 */
export function takeToken(place: TokenPlace): string | null {
  const url = new URL(place.location.href);
  const given = url.searchParams.get('token');
  if (given !== null && given !== '') {
    place.storage.setItem(STORAGE_KEY, given);
    url.searchParams.delete('token');
    place.replaceUrl(url.pathname + url.search + url.hash);
    return given;
  }
  return place.storage.getItem(STORAGE_KEY);
}
