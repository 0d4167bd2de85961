import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ServerContext, ServerEnv } from './server-context.js';
import type { StoredEvent } from './server-log.js';

/**
 * An abort signal for a stream: the client went away, or the server is
 * closing. `release` takes its listeners off the request's and the server's
 * signals once the stream is over.
 */
function streamSignal(
  c: Context<ServerEnv>,
  closing: AbortSignal,
): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  const request = c.req.raw.signal;
  request.addEventListener('abort', stop);
  closing.addEventListener('abort', stop);
  if (request.aborted || closing.aborted) stop();
  return {
    controller,
    release: () => {
      request.removeEventListener('abort', stop);
      closing.removeEventListener('abort', stop);
    },
  };
}

/** Streams `events` as SSE frames, with `: ping` comments in between; `onFirst` once the first is written. */
export function sseResponse(
  c: Context<ServerEnv>,
  context: ServerContext,
  events: (signal: AbortSignal) => AsyncIterable<StoredEvent>,
  onFirst?: () => void,
): Response {
  return streamSSE(c, async (stream) => {
    const { controller, release } = streamSignal(c, context.closing);
    let ended: () => void = () => undefined;
    const open = new Promise<void>((resolve) => {
      ended = resolve;
    });
    context.streams.add(open);
    stream.onAbort(() => {
      controller.abort();
    });
    context.metrics.sseClients.inc();
    const ping = setInterval(() => {
      void stream.write(': ping\n\n');
    }, context.pingMs);
    try {
      let first = onFirst;
      for await (const event of events(controller.signal)) {
        await stream.writeSSE({ id: String(event.seq), event: event.type, data: event.data });
        first?.();
        first = undefined;
      }
    } finally {
      clearInterval(ping);
      controller.abort();
      release();
      context.metrics.sseClients.dec();
      context.streams.delete(open);
      ended();
    }
  });
}
