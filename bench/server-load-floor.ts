// The framework's own share of an answer over HTTP, for bench/server-load.ts:
// a server on the libraries @parley/server is built on (hono on
// @hono/node-server, 127.0.0.1) that answers each
// POST /v1/sessions/:id/replies by reading its JSON body and streaming the
// SSE frames a real answer sends, with none of Parley's work (no
// authentication, session, runner, store or event log). The first frame is
// written alone and the others in two more writes, each on a turn of the
// event loop of its own, as the event feed writes a reply's first event and
// then what the runner gives within a turn. Timed against the same client
// process as the real server, it says how much of the HTTP side's time per
// answer any server on these libraries would spend, and so how much is
// Parley's own.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AgentEvent } from '@parley/core';

/**
 * The SSE frames of one answer's events, numbered from 1, as the server
 * writes them (`sseFrame` in packages/server/src/node/sse-response.ts, which is
 * not exported; an event's JSON text has no line break to split).
 */
export function framesOf(events: readonly AgentEvent[]): string[] {
  return events.map(
    (event, index) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\nid: ${index + 1}\n\n`,
  );
}

/** The writes of one answer: the first frame alone, then the rest in two. */
function writesOf(frames: readonly string[]): Uint8Array[] {
  const encoder = new TextEncoder();
  const middle = 1 + Math.ceil((frames.length - 1) / 2);
  return [frames.slice(0, 1), frames.slice(1, middle), frames.slice(middle)]
    .filter((part) => part.length > 0)
    .map((part) => encoder.encode(part.join('')));
}

/** A floor server streaming `frames` to every answer; `close` stops it. */
export async function floorServer(
  frames: readonly string[],
): Promise<{ url: string; close: () => Promise<void> }> {
  const writes = writesOf(frames);
  const app = new Hono();
  app.post('/v1/sessions/:id/replies', async (c) => {
    await c.req.json();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const write of writes) {
          await nextTurn();
          controller.enqueue(write);
        }
        controller.close();
      },
    });
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    });
  });
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
        resolve({ server, port: info.port }),
      );
    },
  );
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
