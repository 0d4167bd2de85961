import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSink, webSink } from './sse-sinks.js';
import type { SseSink } from './sse-sinks.js';

let server: Server | undefined;

afterEach(async () => {
  const open = server;
  server = undefined;
  if (open !== undefined) {
    open.closeAllConnections();
    await new Promise((resolve) => open.close(resolve));
  }
});

/** A server whose first request's response is handed to `handle`; resolves to its URL. */
async function serving(handle: (response: ServerResponse) => void): Promise<string> {
  server = createServer((_request, response) => {
    handle(response);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

describe('nodeSink', () => {
  it('sends the headers at once, several Set-Cookie values as several, then the text', async () => {
    const url = await serving((response) => {
      const headers = new Headers({ 'content-type': 'text/event-stream', 'x-request': 'r1' });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      const sink = nodeSink(response, headers, new AbortController());
      void sink.write('event: A\ndata: {}\nid: 1\n\n').then(() => {
        sink.end();
      });
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-request')).toBe('r1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('event: A\ndata: {}\nid: 1\n\n');
  });

  it('sends the headers with text written in the same turn, and alone when none comes', async () => {
    let flushes = 0;
    let sink: SseSink | undefined;
    const stop = new AbortController();
    const url = await serving((response) => {
      const flush = response.flushHeaders.bind(response);
      response.flushHeaders = () => {
        flushes += 1;
        flush();
      };
      sink = nodeSink(response, new Headers({ 'content-type': 'text/event-stream' }), stop);
      if (response.req.url === '/at-once') {
        void sink.write('event: A\ndata: {}\nid: 1\n\n').then(() => sink?.end());
      }
    });
    const atOnce = await fetch(`${url}/at-once`);
    expect(await atOnce.text()).toBe('event: A\ndata: {}\nid: 1\n\n');
    expect(flushes).toBe(0);
    // Nothing to write yet: the client still gets the headers, and the stream stays open.
    const waiting = await fetch(`${url}/waiting`);
    expect(waiting.status).toBe(200);
    expect(flushes).toBe(1);
    const body = waiting.text();
    await sink?.write('event: B\ndata: {}\nid: 2\n\n');
    sink?.end();
    expect(await body).toBe('event: B\ndata: {}\nid: 2\n\n');
  });

  it('holds the next write back while a reader is slow, and stops when the client goes away', async () => {
    const stop = new AbortController();
    const chunk = 'x'.repeat(1 << 20);
    let written = 0;
    let writing: Promise<void> = Promise.resolve();
    const url = await serving((response) => {
      const sink = nodeSink(response, new Headers(), stop);
      writing = (async () => {
        for (let index = 0; index < 64; index += 1) {
          await sink.write(chunk);
          written += 1;
        }
      })();
    });
    const client = new AbortController();
    const response = await fetch(url, { signal: client.signal });
    expect(response.status).toBe(200);
    // Nothing read: the socket's buffers fill and the writes wait.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written).toBeLessThan(64);
    expect(stop.signal.aborted).toBe(false);
    client.abort();
    await writing;
    expect(stop.signal.aborted).toBe(true);
  });
});

describe('webSink', () => {
  /** Whether `promise` is still pending after a few turns of the event loop. */
  async function pending(promise: Promise<void>): Promise<boolean> {
    let settled = false;
    void promise.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    return !settled;
  }

  it('holds a write until the reader takes its chunk, and stops when the reader cancels', async () => {
    const stop = new AbortController();
    const { sink, body } = webSink(new AbortController().signal, stop);
    const first = sink.write('one');
    expect(await pending(first)).toBe(true);
    const reader = body.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('one');
    await first;
    const second = sink.write('two');
    expect(await pending(second)).toBe(true);
    await reader.cancel();
    await second;
    expect(stop.signal.aborted).toBe(true);
    // Once the reader is gone, writes do nothing.
    await sink.write('three');
    sink.end();
  });

  it('lets every waiting write go once the reader has taken the chunks (a ping beside a batch)', async () => {
    const { sink, body } = webSink(new AbortController().signal, new AbortController());
    const batch = sink.write('batch');
    const ping = sink.write(': ping');
    expect(await pending(batch)).toBe(true);
    expect(await pending(ping)).toBe(true);
    const reader = body.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('batch');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': ping');
    await Promise.all([batch, ping]);
    sink.end();
    expect((await reader.read()).done).toBe(true);
  });

  it("stops when the request's signal aborts, and lets a waiting write go", async () => {
    const stop = new AbortController();
    const request = new AbortController();
    const { sink, body } = webSink(request.signal, stop);
    const waiting = sink.write('one');
    expect(await pending(waiting)).toBe(true);
    request.abort();
    await waiting;
    expect(stop.signal.aborted).toBe(true);
    sink.end();
    const reader = body.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('one');
    expect((await reader.read()).done).toBe(true);
  });
});
