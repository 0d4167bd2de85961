import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Where an event stream's text goes: `write` resolves once the client may
 * take more (a slow reader holds it back), and does nothing once the client
 * is gone or the stream stopped, except the `last` text, which is queued
 * even after the stream stopped, without waiting for the client; `end`
 * closes the stream, if the client has not.
 */
export type SseSink = { write(text: string, last?: boolean): Promise<void>; end(): void };

/** `headers` as Node takes them: several `Set-Cookie` values stay several. */
function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of headers) out[name] = value;
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

/** Resolves once `outgoing` drained, closed, or `signal` aborted. */
function drained(outgoing: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
    signal.addEventListener('abort', done);
  });
}

/**
 * A stream written straight to Node's response, with status 200 and
 * `headers`; `stop` aborts when the connection closes. The headers go out
 * with the first text when that comes within this turn of the event loop
 * (one write to the socket instead of two), else on their own at the end
 * of the turn, so a client waiting for events knows the stream is open.
 */
export function nodeSink(
  outgoing: ServerResponse,
  headers: Headers,
  stop: AbortController,
): SseSink {
  const abort = (): void => {
    stop.abort();
  };
  outgoing.once('close', abort);
  outgoing.writeHead(200, nodeHeaders(headers));
  let written = false;
  setImmediate(() => {
    if (!written && !outgoing.writableEnded && !outgoing.destroyed) outgoing.flushHeaders();
  });
  return {
    write: async (text, last = false) => {
      if ((stop.signal.aborted && !last) || outgoing.writableEnded || outgoing.destroyed) return;
      written = true;
      if (!outgoing.write(text) && !last) await drained(outgoing, stop.signal);
    },
    end: () => {
      outgoing.off('close', abort);
      if (!outgoing.writableEnded) outgoing.end();
    },
  };
}

const encoder = new TextEncoder();

/**
 * A stream written to the web `ReadableStream` `body` (for a fetch
 * handler's `Response`), whose queue holds one chunk; `stop` aborts when
 * the reader cancels or `request` (the request's signal) aborts.
 */
export function webSink(
  request: AbortSignal,
  stop: AbortController,
): { sink: SseSink; body: ReadableStream<Uint8Array> } {
  const abort = (): void => {
    stop.abort();
  };
  request.addEventListener('abort', abort);
  if (request.aborted) abort();
  let output: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  /**
   * The writes waiting for the reader to take the queued chunks (a ping may
   * wait beside a batch): all go on once it asks for more.
   */
  let waiting: (() => void)[] = [];
  const resume = (): void => {
    const ready = waiting;
    waiting = [];
    for (const go of ready) go();
  };
  // Writes waiting for the reader give up when the stream stops.
  stop.signal.addEventListener('abort', resume);
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
  const sink: SseSink = {
    write: async (text, last = false) => {
      if (closed || output === undefined) return;
      output.enqueue(encoder.encode(text));
      if (!last && (output.desiredSize ?? 1) <= 0) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
        });
      }
    },
    end: () => {
      request.removeEventListener('abort', abort);
      if (!closed) {
        closed = true;
        output?.close();
      }
    },
  };
  return { sink, body };
}
