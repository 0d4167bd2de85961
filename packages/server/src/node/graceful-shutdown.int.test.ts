// close() while a reply is still running, over real HTTP: the reply gets the
// grace period, is then cancelled, its closed state is saved without a
// lease, and a second server on the same store and log continues the session.
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemorySessionStore } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { createServer } from '../http/create-server.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

/** A model that says one word, then hangs until its signal aborts (as a real stream would). */
class HangingModel implements ChatModel {
  readonly name = 'hanging';
  calls = 0;
  async *stream(_request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    this.calls += 1;
    yield { type: 'text_delta', delta: 'Thinking' };
    await sleep(60_000, undefined, signal === undefined ? {} : { signal });
    yield { type: 'finish', finishedReason: 'stop' };
  }
}

/** A model that answers at once. */
const quickModel: ChatModel = {
  name: 'quick',
  async *stream() {
    yield { type: 'text_delta', delta: 'Back again.' };
    yield { type: 'finish', finishedReason: 'stop' };
  },
};

type Frame = { id: number; event: string };

/** Reads SSE frames, calling `onFrame` for each, until the stream ends. */
async function readAll(response: Response, onFrame: (frame: Frame) => void): Promise<Frame[]> {
  const frames: Frame[] = [];
  const parser = createParser({
    onEvent: (event) => {
      const frame = { id: Number(event.id), event: event.event ?? '' };
      frames.push(frame);
      onFrame(frame);
    },
  });
  const reader = response.body?.getReader();
  if (reader === undefined) return frames;
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const bytes: unknown = chunk.value;
    if (bytes instanceof Uint8Array) parser.feed(decoder.decode(bytes, { stream: true }));
  }
  return frames;
}

const authenticate = () => ({ id: 'alice' });

describe('close() with a reply still running', () => {
  it('cancels it after the grace period, saves it closed without a lease, and another server continues', async () => {
    const store = new InMemorySessionStore();
    const log = new SqliteServerLog({ path: ':memory:' });
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => warnings.push(message),
      error: (message) => warnings.push(message),
    };
    const model = new HangingModel();
    const first = createServer({
      store,
      log,
      agent: { name: 'assistant', model },
      authenticate,
      lease: 30_000,
      graceMs: 100,
      logger,
    });
    const { url } = await first.listen({ port: 0 });
    const created = await fetch(`${url}/v1/sessions`, { method: 'POST' });
    const { id } = (await created.json()) as { id: string };
    const response = await fetch(`${url}/v1/sessions/${id}/replies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'think hard' }),
    });
    expect(response.status).toBe(200);

    // Once the model has begun, the reply is running, under a lease.
    let closed: Promise<void> | undefined;
    const frames = await readAll(response, (frame) => {
      if (frame.event === 'TEXT_BLOCK_DELTA' && closed === undefined) closed = first.close();
    });
    await closed;
    const running = await store.load(id);
    expect(running?.state.reply ?? null).toBeNull();
    expect(running?.leaseUntil).toBeUndefined();
    expect(warnings).toContain('Cancelling replies still running after the grace period.');

    // The stream told the whole story: the delta, then the reply's end, cancelled.
    const last = frames.at(-1);
    expect(last?.event).toBe('REPLY_END');
    const stored = await log.events(id, 0, 100);
    expect(stored.map((event) => event.seq)).toEqual(frames.map((frame) => frame.id));
    const end: unknown = JSON.parse(stored.at(-1)?.data ?? '{}');
    expect(end).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
    // A request that still reaches the closed server is refused.
    const late = await first.fetch(new Request(`${url}/v1/sessions`));
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ code: 'shutting_down' });

    // Another server (another process, as far as the runner can tell) continues at once.
    const second = createServer({
      store,
      log,
      agent: { name: 'assistant', model: quickModel },
      authenticate,
      lease: 30_000,
    });
    const again = await second.fetch(
      new Request(`${url}/v1/sessions/${id}/replies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'go on' }),
      }),
    );
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ message: { finishedReason: 'completed' } });
    const after = await log.events(id, 0, 100);
    expect(after.at(-1)?.seq).toBe((stored.at(-1)?.seq ?? 0) + after.length - stored.length);
    expect(model.calls).toBe(1);
    await second.close();
    log.close();
  }, 20_000);

  it('lets a reply that ends within the grace period end, and cancels nothing', async () => {
    const store = new InMemorySessionStore();
    const warnings: string[] = [];
    const slow: ChatModel = {
      name: 'slow',
      async *stream() {
        yield { type: 'text_delta', delta: 'Almost' };
        await sleep(200);
        yield { type: 'text_delta', delta: ' there.' };
        yield { type: 'finish', finishedReason: 'stop' };
      },
    };
    const server = createServer({
      store,
      agent: { name: 'assistant', model: slow },
      authenticate,
      graceMs: 10_000,
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: (message) => warnings.push(message),
        error: (message) => warnings.push(message),
      },
    });
    const { url } = await server.listen({ port: 0 });
    const { id } = (await (await fetch(`${url}/v1/sessions`, { method: 'POST' })).json()) as {
      id: string;
    };
    const response = await fetch(`${url}/v1/sessions/${id}/replies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'finish' }),
    });
    let closed: Promise<void> | undefined;
    const frames = await readAll(response, (frame) => {
      if (frame.event === 'TEXT_BLOCK_DELTA' && closed === undefined) closed = server.close();
    });
    await closed;
    expect(frames.at(-1)?.event).toBe('REPLY_END');
    expect((await store.load(id))?.state.context.at(-1)).toMatchObject({
      role: 'assistant',
      finishedReason: 'completed',
    });
    expect(warnings).toEqual([]);
  }, 20_000);
});
