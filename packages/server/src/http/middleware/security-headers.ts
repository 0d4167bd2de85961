import type { MiddlewareHandler } from 'hono';

/** Whether `path` is the API's (`/v1` and below), whose answers no cache may keep. */
function isApi(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/**
 * The headers every response carries: `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: no-referrer` (the web UI is opened as `/?token=`; no
 * link may carry that address away), and on `/v1` `Cache-Control:
 * no-store`. Set on the context before the route runs (an event stream
 * served by Node sends its headers from there, before the route returns),
 * and on the response after (errors and static files are made whole).
 * hono's `secureHeaders` sets them only after the route, too late for a
 * stream, so this does both.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  const headers: [string, string][] = [
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
  ];
  if (isApi(c.req.path)) headers.push(['Cache-Control', 'no-store']);
  for (const [name, value] of headers) c.header(name, value);
  await next();
  for (const [name, value] of headers) c.res.headers.set(name, value);
};
