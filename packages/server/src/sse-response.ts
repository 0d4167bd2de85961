import type { Context } from 'hono';
import type { ServerContext, ServerEnv } from './server-context.js';
import type { StoredEvent } from './server-log.js';

const encoder = new TextEncoder();

/** The SSE frame of a stored event: `event` its type, `data` its JSON text, `id` its number. */
export function sseFrame(event: StoredEvent): string {
  const data = /[\r\n]/.test(event.data)
    ? event.data.split(/\r\n|\r|\n/).join('\ndata: ')
    : event.data;
  const type = event.type.replace(/[\r\n]/g, '');
  return `event: ${type}\ndata: ${data}\nid: ${event.seq}\n\n`;
}

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

/**
 * Streams `batches` of events as SSE frames, each batch in one write, with
 * `: ping` comments in between; `onFirst` once the first batch is written.
 * A client that reads slowly holds the next write back (the stream's
 * queue holds one chunk).
 */
export function sseResponse(
  c: Context<ServerEnv>,
  context: ServerContext,
  batches: (signal: AbortSignal) => AsyncIterable<StoredEvent[]>,
  onFirst?: () => void,
): Response {
  const { controller: stop, release } = streamSignal(c, context.closing);
  let ended: () => void = () => undefined;
  const open = new Promise<void>((resolve) => {
    ended = resolve;
  });
  context.streams.add(open);
  context.metrics.sseClients.inc();
  let output: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Resolves a write waiting for the reader to take the queued chunk. */
  let wanted: (() => void) | undefined;
  let closed = false;
  const resume = (): void => {
    const waiting = wanted;
    wanted = undefined;
    waiting?.();
  };
  const send = async (text: string): Promise<void> => {
    if (closed || output === undefined) return;
    output.enqueue(encoder.encode(text));
    if ((output.desiredSize ?? 1) <= 0) {
      await new Promise<void>((resolve) => {
        wanted = resolve;
      });
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      output = controller;
    },
    pull() {
      resume();
    },
    cancel() {
      closed = true;
      stop.abort();
      resume();
    },
  });
  const ping = setInterval(() => {
    void send(': ping\n\n');
  }, context.pingMs);
  void (async () => {
    try {
      let first = onFirst;
      for await (const batch of batches(stop.signal)) {
        await send(batch.map(sseFrame).join(''));
        first?.();
        first = undefined;
        if (closed) break;
      }
    } catch (error) {
      context.logger.error('An event stream failed.', { error: String(error) });
    } finally {
      clearInterval(ping);
      stop.abort();
      release();
      context.metrics.sseClients.dec();
      if (!closed) {
        closed = true;
        output?.close();
      }
      context.streams.delete(open);
      ended();
    }
  })();
  c.header('Transfer-Encoding', 'chunked');
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache');
  c.header('Connection', 'keep-alive');
  return c.newResponse(body);
}
