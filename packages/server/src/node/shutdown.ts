import type { ServerType } from '@hono/node-server';
import type { ExpiryTimer } from '../waiting/expiry-timer.js';
import type { ServerContext } from '../http/server-context.js';

/** What `shutDown` stops: the Node server if it listens, the expiry timer, and the signals it aborts. */
export type Shutdown = {
  context: ServerContext;
  node: ServerType | undefined;
  expiry: ExpiryTimer | undefined;
  /** How long running replies may go on before they are cancelled (ms). */
  graceMs: number;
  /** Aborted first: new requests get 503 `shutting_down`. */
  draining: AbortController;
  /** Aborted last: event streams end. */
  closing: AbortController;
};

/** How long ended event streams get to send their last frames before their connections are cut (ms). */
const STREAMS_END_MS = 1_000;

/** Resolves to `'late'` after `ms`, unless `cancel` is called first. */
function lateAfter(ms: number): { late: Promise<'late'>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  return { late, cancel: () => clearTimeout(timer) };
}

/**
 * Stops a server in order: new requests are refused (the listening socket
 * closes, idle keep-alive connections are dropped, and a request that still
 * arrives gets 503 `shutting_down`); the expiry sweep stops; the replies
 * running here get `graceMs` to park or end; those still running then are
 * cancelled through `Sessions.cancel`, which saves their closed state
 * without a lease, so any other process may continue the session at once;
 * each reply's events are stored and its approvals index refreshed; then
 * the event streams end and the remaining connections close.
 */
export async function shutDown(shutdown: Shutdown): Promise<void> {
  const { context, node } = shutdown;
  shutdown.draining.abort();
  const stopped = new Promise<void>((resolve) => {
    if (node === undefined || !node.listening) resolve();
    else node.close(() => resolve());
  });
  if (node !== undefined && 'closeIdleConnections' in node) node.closeIdleConnections();
  await shutdown.expiry?.stop();
  const running = () => Promise.all([...context.running].map((reply) => reply.done));
  const grace = lateAfter(shutdown.graceMs);
  if ((await Promise.race([running(), grace.late])) === 'late') {
    const ids = new Set([...context.running].map((reply) => reply.sessionId));
    context.logger.warn('Cancelling replies still running after the grace period.', {
      sessions: [...ids],
      graceMs: shutdown.graceMs,
    });
    await Promise.all(
      [...ids].map((id) =>
        context.sessions.cancel(id).catch((error: unknown) => {
          context.logger.error('Could not cancel a running reply.', {
            sessionId: id,
            error: String(error),
          });
        }),
      ),
    );
    await running();
  }
  grace.cancel();
  // The streams end on their own once told; their last frames go out before
  // the connections that are left are cut (bounded: a client may not read).
  shutdown.closing.abort();
  const drained = lateAfter(STREAMS_END_MS);
  await Promise.race([Promise.all(context.streams), drained.late]);
  // Their last bytes are handed to the sockets on the next turns.
  await new Promise((resolve) => setImmediate(resolve));
  if (node !== undefined && 'closeIdleConnections' in node) node.closeIdleConnections();
  await Promise.race([stopped, drained.late]);
  drained.cancel();
  if (node !== undefined && 'closeAllConnections' in node) node.closeAllConnections();
  await stopped;
}
