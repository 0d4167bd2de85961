import type { MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { timeout } from 'hono/timeout';
import { UnauthenticatedError } from './errors.js';
import type { Authenticate } from './principal.js';
import { problemFor, problemResponse } from './problem.js';
import { RequestTimeoutError } from './service-errors.js';

/** Options of `requestGuards`: who the caller is, and how long a request may take (0: no limit). */
export type RequestGuardOptions = { authenticate: Authenticate; timeoutMs: number };

/** Whether a request asks for an event stream, which may stay open as long as its client wants. */
function isStream(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('text/event-stream') || /\/events\/?$/.test(new URL(request.url).pathname);
}

/**
 * Middleware the server puts in front of routes: `timeout` answers a request
 * that is not an event stream with 503 `request_timeout` once it has taken
 * `timeoutMs` (hono's timeout middleware; the handler is not stopped, so a
 * reply it started goes on); `authenticated` refuses a request
 * `authenticate` finds no principal for (401).
 */
export function requestGuards(options: RequestGuardOptions): {
  timeout: MiddlewareHandler;
  authenticated: MiddlewareHandler;
} {
  const { timeoutMs } = options;
  const timed =
    timeoutMs > 0
      ? timeout(
          timeoutMs,
          () =>
            new HTTPException(503, {
              res: problemResponse(problemFor(new RequestTimeoutError(timeoutMs))),
            }),
        )
      : undefined;
  return {
    timeout: async (c, next) => {
      if (timed === undefined || isStream(c.req.raw)) return next();
      return timed(c, next);
    },
    authenticated: async (c, next) => {
      if ((await options.authenticate(c.req.raw)) === null) throw new UnauthenticatedError();
      return next();
    },
  };
}
