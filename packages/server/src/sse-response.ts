import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { ServerContext, ServerEnv } from './server-context.js';
import type { StoredEvent } from './server-log.js';
import { nodeSink, webSink } from './sse-sinks.js';
import type { SseSink } from './sse-sinks.js';

/** The SSE frame of a stored event: `event` its type, `data` its JSON text, `id` its number. */
export function sseFrame(event: StoredEvent): string {
  const data = /[\r\n]/.test(event.data)
    ? event.data.split(/\r\n|\r|\n/).join('\ndata: ')
    : event.data;
  const type = event.type.replace(/[\r\n]/g, '');
  return `event: ${type}\ndata: ${data}\nid: ${event.seq}\n\n`;
}

/** The headers of every event stream. */
const streamHeaders = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
} as const;

/**
 * The Node response under `c` when the app is served by `@hono/node-server`
 * (`listen`); `undefined` when it is called as a fetch handler.
 */
function nodeResponseOf(c: Context<ServerEnv>): ServerResponse | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  return env.outgoing instanceof ServerResponse ? env.outgoing : undefined;
}

/**
 * Streams `batches` of events as SSE frames, each batch in one write, with
 * `: ping` comments in between; `onFirst` once the first batch is written.
 * A client that reads slowly holds the next write back. Served by Node, the
 * frames go straight to its response (no web stream in between); called as
 * a fetch handler, they go through the body of the `Response` returned.
 * The stream stops when the client goes away or the server closes.
 */
export function sseResponse(
  c: Context<ServerEnv>,
  context: ServerContext,
  batches: (signal: AbortSignal) => AsyncIterable<StoredEvent[]>,
  onFirst?: () => void,
): Response {
  const stop = new AbortController();
  const outgoing = nodeResponseOf(c);
  if (outgoing !== undefined) {
    // Headers set on `c` before (by middleware) go out with the stream's own.
    const headers = c.newResponse(null).headers;
    for (const [name, value] of Object.entries(streamHeaders)) headers.set(name, value);
    const sink = nodeSink(outgoing, headers, stop);
    pump(context, sink, stop, batches, onFirst);
    return RESPONSE_ALREADY_SENT;
  }
  const { sink, body } = webSink(c.req.raw.signal, stop);
  pump(context, sink, stop, batches, onFirst);
  c.header('Transfer-Encoding', 'chunked');
  for (const [name, value] of Object.entries(streamHeaders)) c.header(name, value);
  return c.newResponse(body);
}

/**
 * Writes the batches to `sink` until they end or `stop` aborts (the sink
 * aborts it when its client goes away; the server's close does too), and
 * counts the stream in the server's open streams and its metrics meanwhile.
 */
function pump(
  context: ServerContext,
  sink: SseSink,
  stop: AbortController,
  batches: (signal: AbortSignal) => AsyncIterable<StoredEvent[]>,
  onFirst: (() => void) | undefined,
): void {
  const abort = (): void => {
    stop.abort();
  };
  context.closing.addEventListener('abort', abort);
  if (context.closing.aborted) abort();
  let ended: () => void = () => undefined;
  const open = new Promise<void>((resolve) => {
    ended = resolve;
  });
  context.streams.add(open);
  context.metrics.sseClients.inc();
  const ping = setInterval(() => {
    void sink.write(': ping\n\n');
  }, context.pingMs);
  void (async () => {
    try {
      let first = onFirst;
      for await (const batch of batches(stop.signal)) {
        await sink.write(batch.map(sseFrame).join(''));
        first?.();
        first = undefined;
        if (stop.signal.aborted) break;
      }
    } catch (error) {
      context.logger.error('An event stream failed.', { error: String(error) });
    } finally {
      clearInterval(ping);
      context.closing.removeEventListener('abort', abort);
      stop.abort();
      sink.end();
      context.metrics.sseClients.dec();
      context.streams.delete(open);
      ended();
    }
  })();
}
