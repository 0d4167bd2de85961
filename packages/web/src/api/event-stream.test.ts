import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NumberedEvent } from './event-stream.js';
import { followSession, isAgentEvent } from './event-stream.js';

const frame = (seq: number) =>
  `id: ${seq}\nevent: TEXT_BLOCK_DELTA\ndata: ${JSON.stringify({
    type: 'TEXT_BLOCK_DELTA',
    replyId: 'r',
    blockId: 'b',
    delta: `${seq} `,
    id: `e${seq}`,
    createdAt: '2026-12-03T12:00:00.000Z',
    metadata: {},
  })}\n\n`;

/** A response whose body sends `text` and then ends (a dropped connection). */
function sse(text: string): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    }),
    { headers: { 'Content-Type': 'text/event-stream' } },
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('followSession', () => {
  it('reconnects after a drop with Last-Event-ID, and passes each event on once, in order', async () => {
    const asked: (string | null)[] = [];
    const controller = new AbortController();
    const bodies = [
      frame(1) + frame(2) + frame(3).slice(0, 20), // dropped mid-frame: 3 is not whole
      frame(2) + frame(3) + frame(4), // a server that repeats 2 is not believed twice
      '',
    ];
    vi.stubGlobal('fetch', (_url: string, init: RequestInit) => {
      asked.push(new Headers(init.headers).get('last-event-id'));
      const body = bodies.shift();
      if (body === undefined || body === '') controller.abort();
      return Promise.resolve(sse(body ?? ''));
    });
    const seen: NumberedEvent[] = [];
    await followSession(
      {
        origin: 'http://parley.test',
        token: 't',
        sessionId: 's',
        after: 0,
        signal: controller.signal,
        retryMs: 1,
      },
      { onEvent: (event) => seen.push(event) },
    );
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual(['0', '2', '4']);
  });

  it('stops on a refusal that reconnecting cannot fix', async () => {
    const refusals: number[] = [];
    vi.stubGlobal('fetch', () =>
      Promise.resolve(
        Response.json(
          {
            type: 'about:blank',
            title: 'Not found',
            status: 404,
            detail: 'No such session',
            code: 'session_not_found',
          },
          { status: 404 },
        ),
      ),
    );
    await followSession(
      {
        origin: 'http://parley.test',
        token: 't',
        sessionId: 's',
        after: 0,
        signal: new AbortController().signal,
      },
      { onEvent: () => undefined, onFatal: (error) => refusals.push(error.status) },
    );
    expect(refusals).toEqual([404]);
  });
});

describe('isAgentEvent', () => {
  it('takes the events the library emits and skips anything else', () => {
    expect(isAgentEvent({ type: 'REPLY_END', replyId: 'r' })).toBe(true);
    expect(isAgentEvent({ type: 'SOMETHING_NEWER', replyId: 'r' })).toBe(false);
    expect(isAgentEvent({ type: 'REPLY_END' })).toBe(false);
    expect(isAgentEvent('REPLY_END')).toBe(false);
  });
});
