import type { Context, MiddlewareHandler } from 'hono';
import type { ClosingNote } from '../../events/closing-frame.js';
import { credentialsLost } from '../../events/closing-frame.js';
import { watchCredentials } from '../../auth/credential-watch.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { TooManyStreamsError } from '../../events/stream-errors.js';

/**
 * Whether a request asks for an event stream, which may stay open as long
 * as its client wants: `Accept: text/event-stream`, a session's `/events`,
 * or an AG-UI run (SSE or protobuf, as its `Accept` chooses).
 */
export function isStreamRequest(method: string, path: string, accept: string | undefined): boolean {
  if ((accept ?? '').includes('text/event-stream') || /\/events\/?$/.test(path)) return true;
  return method === 'POST' && /^\/v1\/agui\/?$/.test(path);
}

/**
 * Admits a request for an event stream under the server's stream limits
 * before its route runs (429 `too_many_streams` beyond them, with nothing
 * started), and gives the place back if the route answered without a
 * stream (an error, a JSON replay). Runs after authentication.
 */
export function admitStreams(context: ServerContext): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (!isStreamRequest(c.req.method, c.req.path, c.req.header('accept'))) return next();
    let slot;
    try {
      slot = context.streamLimits.admit(c.get('principal').id);
    } catch (error) {
      if (error instanceof TooManyStreamsError) {
        context.metrics.streamsRefused.inc({ limit: error.limit });
      }
      throw error;
    }
    c.set('streamSlot', slot);
    try {
      await next();
    } finally {
      // A stream that opened took its place over (`guardStream`).
      if (c.get('streamSlot') === slot) slot.release();
    }
  };
}

/**
 * What an event stream holds while it is open: its place under the stream
 * limits (taken over from `admitStreams`) and a watch on its caller's
 * credentials, which calls `lost` with the closing note once they are no
 * longer valid (checked every `streamAuthCheckMs`). Returns the function
 * that lets both go, once the stream has ended.
 */
export function guardStream(
  c: Context<ServerEnv>,
  context: ServerContext,
  lost: (note: ClosingNote) => void,
): () => void {
  const principal = c.get('principal');
  const slot = c.get('streamSlot') ?? context.streamLimits.admit(principal.id, { force: true });
  c.set('streamSlot', undefined);
  const stopWatch = watchCredentials({
    authenticate: context.authenticate,
    request: c.req.raw,
    principal,
    everyMs: context.streamAuthCheckMs,
    logger: context.logger,
    lost: () => {
      context.metrics.streamsClosed.inc({ reason: credentialsLost.reason });
      lost(credentialsLost);
    },
  });
  return () => {
    stopWatch();
    slot.release();
  };
}
