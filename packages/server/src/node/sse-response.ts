import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { ServerContext, ServerEnv } from '../http/server-context.js';
import type { StoredEvent } from '../log/session-log.js';
import { nodeSink, webSink } from './sse-sinks.js';
import type { SseSink } from './sse-sinks.js';
import { closingFrame } from '../events/closing-frame.js';
import type { ClosingNote } from '../events/closing-frame.js';
import { guardStream } from '../http/middleware/stream-guard.js';

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
  'Cache-Control': 'no-store',
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
 * What a stream does besides sending its events: `onFirst` once the first
 * batch is written; `closing`, once the events have ended (not when the
 * client left or the server closed), the note to send as the last frame, if any.
 */
export type SseOptions = {
  onFirst?: () => void;
  closing?: () => Promise<ClosingNote | undefined>;
};

/**
 * Streams `batches` of events as SSE frames, each batch in one write, with
 * `: ping` comments in between (`options` says what else it does).
 * Once the caller's credentials are no longer valid (checked every
 * `streamAuthCheckMs`), the stream ends with a `STREAM_CLOSED` frame saying
 * so; the reply it showed goes on.
 * A client that reads slowly holds the next write back. Served by Node, the
 * frames go straight to its response (no web stream in between); called as
 * a fetch handler, they go through the body of the `Response` returned.
 * The stream stops when the client goes away or the server closes.
 */
export function sseResponse(
  c: Context<ServerEnv>,
  context: ServerContext,
  batches: (signal: AbortSignal) => AsyncIterable<StoredEvent[]>,
  options: SseOptions = {},
): Response {
  const stop = new AbortController();
  let closed: ClosingNote | undefined;
  const release = guardStream(c, context, (note) => {
    closed = note;
    stop.abort();
  });
  const stream: Stream = { stop, batches, options, release, closed: () => closed };
  const outgoing = nodeResponseOf(c);
  if (outgoing !== undefined) {
    // Headers set on `c` before (by middleware) go out with the stream's own.
    const headers = c.newResponse(null).headers;
    for (const [name, value] of Object.entries(streamHeaders)) headers.set(name, value);
    pump(context, nodeSink(outgoing, headers, stop), stream);
    return RESPONSE_ALREADY_SENT;
  }
  const { sink, body } = webSink(c.req.raw.signal, stop);
  pump(context, sink, stream);
  c.header('Transfer-Encoding', 'chunked');
  for (const [name, value] of Object.entries(streamHeaders)) c.header(name, value);
  return c.newResponse(body);
}

/** One stream being sent: what stops it, its events, what it does besides, and its guard. */
type Stream = {
  stop: AbortController;
  batches: (signal: AbortSignal) => AsyncIterable<StoredEvent[]>;
  options: SseOptions;
  /** Lets go of the stream's place under the limits and its credential checks. */
  release: () => void;
  /** The note the stream was closed with early, if it was. */
  closed: () => ClosingNote | undefined;
};

/**
 * Writes the batches to `sink` until they end or `stop` aborts (the sink
 * aborts it when its client goes away; the server's close does too; the
 * credential checks do, with a note), then the closing note if there is
 * one, and counts the stream in the server's open streams and its metrics
 * meanwhile.
 */
function pump(context: ServerContext, sink: SseSink, stream: Stream): void {
  const { stop, batches, options } = stream;
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
      let first = options.onFirst;
      for await (const batch of batches(stop.signal)) {
        await sink.write(batch.map(sseFrame).join(''));
        first?.();
        first = undefined;
        if (stop.signal.aborted) break;
      }
      const note = stream.closed() ?? (stop.signal.aborted ? undefined : await options.closing?.());
      // Written at once, before the end: a client that reads no more cannot hold it back.
      if (note !== undefined) void sink.write(closingFrame(note), true);
    } catch (error) {
      context.logger.error('An event stream failed.', { error: String(error) });
    } finally {
      clearInterval(ping);
      context.closing.removeEventListener('abort', abort);
      stop.abort();
      sink.end();
      context.metrics.sseClients.dec();
      stream.release();
      context.streams.delete(open);
      ended();
    }
  })();
}
