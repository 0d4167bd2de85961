import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { Approval } from './api/client.js';
import { createApi } from './api/client.js';
import { ApprovalsInbox } from './components/approvals-inbox.js';
import { SessionList } from './components/session-list.js';
import { SessionView } from './components/session-view.js';
import { ThemeToggle } from './components/theme-toggle.js';

/** A screen of the app, from the URL's fragment. */
export type Route =
  { screen: 'sessions' } | { screen: 'approvals' } | { screen: 'session'; id: string };

/** Reads the route from a fragment: `#/`, `#/approvals`, `#/sessions/<id>`. */
export function routeOf(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const session = /^\/sessions\/([^/?#]+)$/.exec(path);
  if (session?.[1] !== undefined) return { screen: 'session', id: decodeURIComponent(session[1]) };
  if (path === '/approvals') return { screen: 'approvals' };
  return { screen: 'sessions' };
}

const subscribe = (change: () => void) => {
  window.addEventListener('hashchange', change);
  return () => window.removeEventListener('hashchange', change);
};

/** How often the approvals inbox (and the count in the title) is read again. */
const INBOX_EVERY_MS = 2_000;

/**
 * The web UI: sessions, the approvals inbox (its count in the tab title)
 * and a session, routed by the URL's fragment so the server serves one page.
 */
export function App({ token }: { token: string | null }) {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  const route = routeOf(hash);
  const api = useMemo(
    () => (token === null ? undefined : createApi(token, window.location.origin)),
    [token],
  );
  const [approvals, setApprovals] = useState<Approval[] | undefined>();

  const loadApprovals = useCallback(async () => {
    if (api === undefined) return;
    try {
      setApprovals((await api.approvals()).approvals);
    } catch {
      // Shown as unknown until the next read.
    }
  }, [api]);
  useEffect(() => {
    void loadApprovals();
    const timer = setInterval(() => void loadApprovals(), INBOX_EVERY_MS);
    return () => clearInterval(timer);
  }, [loadApprovals]);

  const count = approvals?.length ?? 0;
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Parley` : 'Parley';
  }, [count]);

  if (api === undefined) {
    return (
      <main className="signed-out">
        <h1>Parley</h1>
        <p>
          Open the address <code>parley serve</code> printed (it ends in <code>/?token=…</code>), or
          add <code>?token=</code> and an API key to this page’s address.
        </p>
      </main>
    );
  }
  const navigate = (target: string) => {
    window.location.hash = target;
  };
  return (
    <>
      <header className="top">
        <a className="brand" href="#/">
          Parley
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route.screen === 'sessions' ? 'page' : undefined}>
            Sessions
          </a>
          <a href="#/approvals" aria-current={route.screen === 'approvals' ? 'page' : undefined}>
            Approvals{count > 0 ? <span className="count">{` ${count}`}</span> : null}
          </a>
        </nav>
        <ThemeToggle />
      </header>
      <main>
        {route.screen === 'sessions' ? (
          <SessionList api={api} navigate={navigate} />
        ) : route.screen === 'approvals' ? (
          <ApprovalsInbox api={api} approvals={approvals} onAnswered={() => void loadApprovals()} />
        ) : (
          <SessionView key={route.id} api={api} sessionId={route.id} />
        )}
      </main>
    </>
  );
}
