// A message sent with an Idempotency-Key whose first attempt stopped after
// its reply had started: the retry that takes the claim over does not run
// the reply again (the message is stored once, the model called once); it
// gets the first attempt's events, or 409 idempotent_request_interrupted.
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemorySessionStore } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { readFrames, readText } from '../test/support.js';
import { createServer } from './create-server.js';
import type { ParleyServer } from './create-server.js';
import { idempotencyClaim } from './idempotency.js';
import { SqliteServerLog } from './sqlite-server-log.js';

/** A model that says one word, then hangs until its signal aborts; `calls` counts its calls. */
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

/** A model that answers at once; `calls` counts its calls. */
class QuickModel implements ChatModel {
  readonly name = 'quick';
  calls = 0;
  async *stream(): AsyncGenerator<ChatChunk> {
    this.calls += 1;
    yield await Promise.resolve({ type: 'text_delta', delta: 'Done.' } as const);
    yield { type: 'finish', finishedReason: 'stop' };
  }
}

const authenticate = () => ({ id: 'alice' });

function logTo(lines: string[]): Logger {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => lines.push(message),
    error: (message) => lines.push(message),
  };
}

function send(server: ParleyServer, path: string, body: unknown, headers: Record<string, string>) {
  return server.fetch(
    new Request(`http://parley.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

async function createSession(server: ParleyServer): Promise<string> {
  const created = await server.fetch(
    new Request('http://parley.test/v1/sessions', { method: 'POST' }),
  );
  return ((await created.json()) as { id: string }).id;
}

describe('a keyed message retried after its first attempt stopped', () => {
  it('is not run again once its reply started: the events so far, or 409 interrupted', async () => {
    const store = new InMemorySessionStore();
    const log = new SqliteServerLog({ path: ':memory:' });
    const model = new HangingModel();
    const lines: string[] = [];
    const agent = { name: 'assistant', model };
    // The first attempt's server: its reply starts, then hangs as if its process had stopped.
    const first = createServer({
      store,
      log,
      agent,
      authenticate,
      graceMs: 50,
      logger: logTo(lines),
    });
    const id = await createSession(first);
    const path = `/v1/sessions/${id}/replies`;
    const message = { input: 'hello' };
    const sse = { accept: 'text/event-stream', 'idempotency-key': 'm1' };
    const opened = await send(first, path, message, sse);
    expect(opened.status).toBe(200);
    await readText(opened, (_chunk, all) => all.includes('TEXT_BLOCK_DELTA'));
    // Its events so far are stored (appends are committed a turn later).
    while ((await log.events(id, 0, 100)).length < 2) await sleep(5);
    const stored = await log.events(id, 0, 100);

    // Another server, whose clock is past the first claim's hold: it takes the claim over.
    const hour = 3_600_000;
    const second = createServer({
      store,
      log,
      agent,
      authenticate,
      clock: () => new Date(Date.now() + hour),
      logger: logTo(lines),
    });
    const json = await send(second, path, message, { 'idempotency-key': 'm1' });
    expect(json.status).toBe(409);
    expect(await json.json()).toMatchObject({ code: 'idempotent_request_interrupted' });

    // With text/event-stream: the first attempt's events as stored, then the stream ends.
    const frames = await readFrames(await send(second, path, message, sse));
    expect(frames.map((frame) => Number(frame.id))).toEqual(stored.map((event) => event.seq));
    expect(frames[0]?.event).toBe('REPLY_START');
    // Settled: the same again, from either server.
    const again = await send(first, path, message, { 'idempotency-key': 'm1' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'idempotent_request_interrupted' });

    // The message is stored once, and the model was called once.
    const state = (await store.load(id))?.state;
    const users = state?.context.filter((entry) => entry.role === 'user') ?? [];
    expect(users).toHaveLength(1);
    expect(model.calls).toBe(1);
    await first.close();
    // The first attempt, cancelled at close, could no longer settle the claim it lost.
    const late = await send(second, path, message, { 'idempotency-key': 'm1' });
    expect(await late.json()).toMatchObject({ code: 'idempotent_request_interrupted' });
    await second.close();
    log.close();
  }, 20_000);

  it('runs a message whose first attempt stopped before its reply started', async () => {
    const store = new InMemorySessionStore();
    const log = new SqliteServerLog({ path: ':memory:' });
    const model = new QuickModel();
    const server = createServer({ store, log, agent: { name: 'assistant', model }, authenticate });
    const id = await createSession(server);
    const message = { input: 'hello' };
    // The claim a dead attempt left: the same request, its hold over, no reply started.
    const hold = { clock: () => new Date(0), claimLeaseMs: 1, logger: logTo([]) };
    const dead = idempotencyClaim('alice', 'm2', id, message, hold);
    if (dead === undefined) throw new Error('no claim');
    expect(await log.claimIdempotency(dead, 0)).toBeUndefined();

    const response = await send(server, `/v1/sessions/${id}/replies`, message, {
      'idempotency-key': 'm2',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ message: { finishedReason: 'completed' } });
    expect(model.calls).toBe(1);
    const state = (await store.load(id))?.state;
    expect(state?.context.filter((entry) => entry.role === 'user')).toHaveLength(1);
    await server.close();
    log.close();
  });
});
