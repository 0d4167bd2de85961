import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { timeout } from 'hono/timeout';
import { BodyTooLargeError, UnauthenticatedError } from '../../errors.js';
import type { Authenticate } from '../../auth/principal.js';
import { problemFor, problemResponse } from '../problem.js';
import { RequestTimeoutError } from '../../service-errors.js';
import { isStreamRequest } from './stream-guard.js';

/** Options of `requestGuards`: who the caller is, and how long a request may take (0: no limit). */
export type RequestGuardOptions = { authenticate: Authenticate; timeoutMs: number };

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
      const stream = isStreamRequest(c.req.method, c.req.path, c.req.header('accept'));
      if (timed === undefined || stream) return next();
      return timed(c, next);
    },
    authenticated: async (c, next) => {
      if ((await options.authenticate(c.req.raw)) === null) {
        throw new UnauthenticatedError(c.req.header('authorization') !== undefined);
      }
      return next();
    },
  };
}

/**
 * Refuses a request body over `maxSize` bytes with `BodyTooLargeError`: by
 * its `Content-Length` when it has one (the body is not touched, so it can
 * still be read without a stream in between), else by counting it as it
 * is read (hono's `bodyLimit`).
 */
export function bodySizeLimit(maxSize: number): MiddlewareHandler {
  const counted = bodyLimit({
    maxSize,
    onError: () => {
      throw new BodyTooLargeError(maxSize);
    },
  });
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) {
      return counted(c, next);
    }
    if (parseInt(length, 10) > maxSize) throw new BodyTooLargeError(maxSize);
    return next();
  };
}
