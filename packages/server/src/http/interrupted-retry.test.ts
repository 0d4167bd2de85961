// A message sent with an Idempotency-Key whose first attempt stopped after
// its reply had started: the retry that takes the claim over does not run
// the reply again (the message is stored once, the model called once); it
// gets the first attempt's events, or 409 idempotent_request_interrupted.
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemorySessionStore } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { postJson, readFrames, readText } from '../../test/support.js';
import { createServer } from './create-server.js';
import type { ParleyServer } from './create-server.js';
import { idempotencyClaim } from '../idempotency/idempotency.js';
import type { StoredEvent } from '../log/session-log.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

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

/** A server on an in-memory store and log, answering with a counted model. */
function served() {
  const store = new InMemorySessionStore();
  const log = new SqliteServerLog({ path: ':memory:' });
  const model = new QuickModel();
  const server = createServer({ store, log, agent: { name: 'assistant', model }, authenticate });
  return { store, log, model, server };
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
    const opened = await postJson(first, path, message, sse);
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
    const json = await postJson(second, path, message, { 'idempotency-key': 'm1' });
    expect(json.status).toBe(409);
    // Cut part way (no end, no park stored): what became of it is not known.
    expect(await json.json()).toMatchObject({
      code: 'idempotent_request_interrupted',
      outcome: 'unknown',
    });

    // With text/event-stream: the first attempt's events as stored, then a
    // closing frame (no id) saying it was interrupted and where to look.
    const frames = await readFrames(await postJson(second, path, message, sse));
    const numbered = frames.filter((frame) => frame.id !== undefined);
    expect(numbered.map((frame) => Number(frame.id))).toEqual(stored.map((event) => event.seq));
    expect(frames[0]?.event).toBe('REPLY_START');
    expect(frames.at(-1)?.event).toBe('STREAM_CLOSED');
    expect(frames.at(-1)?.id).toBeUndefined();
    expect(JSON.parse(frames.at(-1)?.data ?? '')).toMatchObject({
      reason: 'idempotent_request_interrupted',
      outcome: 'unknown',
      location: `/v1/sessions/${id}`,
    });
    // Settled: the same again, from either server.
    const again = await postJson(first, path, message, { 'idempotency-key': 'm1' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'idempotent_request_interrupted' });

    // The message is stored once, and the model was called once.
    const state = (await store.load(id))?.state;
    const users = state?.context.filter((entry) => entry.role === 'user') ?? [];
    expect(users).toHaveLength(1);
    expect(model.calls).toBe(1);
    await first.close();
    // The first attempt, cancelled at close, could no longer settle the claim it lost.
    const late = await postJson(second, path, message, { 'idempotency-key': 'm1' });
    expect(await late.json()).toMatchObject({ code: 'idempotent_request_interrupted' });
    await second.close();
    log.close();
  }, 20_000);

  it('runs a message whose first attempt stopped before its reply started', async () => {
    const { store, log, model, server } = served();
    const id = await createSession(server);
    const message = { input: 'hello' };
    // The claim a dead attempt left: the same request, its hold over, no reply started.
    const hold = { clock: () => new Date(0), claimLeaseMs: 1, logger: logTo([]) };
    const dead = idempotencyClaim('alice', 'm2', id, message, hold);
    if (dead === undefined) throw new Error('no claim');
    expect(await log.claimIdempotency(dead, 0)).toBeUndefined();

    const response = await postJson(server, `/v1/sessions/${id}/replies`, message, {
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

  it('runs a message whose dead attempt recorded where its reply would start, if none did', async () => {
    const { store, log, model, server } = served();
    const id = await createSession(server);
    const path = `/v1/sessions/${id}/replies`;
    expect((await postJson(server, path, { input: 'earlier' }, {})).status).toBe(200);
    const message = { input: 'hello' };
    // The dead attempt recorded the number its reply would start after, then stopped.
    const dead = await deadClaim(log, 'm3', id, message);
    await log.startIdempotency({ ...dead, after: await log.lastSeq(id) });

    const response = await postJson(server, path, message, { 'idempotency-key': 'm3' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ message: { finishedReason: 'completed' } });
    expect(model.calls).toBe(2);
    const state = (await store.load(id))?.state;
    expect(state?.context.filter((entry) => entry.role === 'user')).toHaveLength(2);
    await server.close();
    log.close();
  });

  it('does not run a message whose dead attempt stored its first event', async () => {
    const { store, log, model, server } = served();
    const id = await createSession(server);
    const path = `/v1/sessions/${id}/replies`;
    expect((await postJson(server, path, { input: 'earlier' }, {})).status).toBe(200);
    const message = { input: 'hello' };
    // The dead attempt recorded `after`, stored its REPLY_START, and stopped
    // before it could say anything more on the claim.
    const dead = await deadClaim(log, 'm4', id, message);
    const after = await log.lastSeq(id);
    await log.startIdempotency({ ...dead, after });
    const start = { seq: after + 1, type: 'REPLY_START', data: '{"type":"REPLY_START"}' };
    await log.append(id, [start], after + 1);

    const json = await postJson(server, path, message, { 'idempotency-key': 'm4' });
    expect(json.status).toBe(409);
    expect(await json.json()).toMatchObject({ code: 'idempotent_request_interrupted' });
    const sse = { accept: 'text/event-stream', 'idempotency-key': 'm4' };
    const frames = await readFrames(await postJson(server, path, message, sse));
    expect(frames.map((frame) => [frame.id, frame.event])).toEqual([
      [String(after + 1), 'REPLY_START'],
      [undefined, 'STREAM_CLOSED'],
    ]);
    expect(model.calls).toBe(1);
    const state = (await store.load(id))?.state;
    expect(state?.context.filter((entry) => entry.role === 'user')).toHaveLength(1);
    await server.close();
    log.close();
  });
});

describe('a keyed message', () => {
  it('records on its claim where its reply starts before its first event is stored', async () => {
    const seen: (number | null | undefined)[] = [];
    let watching = false;
    /** A log that reads the claim of key `m5` whenever a REPLY_START is appended, once told to. */
    class WatchedLog extends SqliteServerLog {
      override async append(id: string, events: readonly StoredEvent[], reserved: number) {
        if (watching && events.some((event) => event.type === 'REPLY_START')) {
          // Another request under the key only reads the claim.
          const probe = { ...claimProbe, requestHash: 'other' };
          seen.push((await this.claimIdempotency(probe, 0))?.after);
        }
        return super.append(id, events, reserved);
      }
    }
    const claimProbe = {
      principal: 'alice',
      key: 'm5',
      requestHash: '',
      claimId: 'probe',
      heldUntil: 0,
      after: null,
      lastSeq: null,
      response: null,
      status: 200,
      interrupted: false,
    };
    const store = new InMemorySessionStore();
    const log = new WatchedLog({ path: ':memory:' });
    const model = new QuickModel();
    const server = createServer({ store, log, agent: { name: 'assistant', model }, authenticate });
    const id = await createSession(server);
    const path = `/v1/sessions/${id}/replies`;
    expect((await postJson(server, path, { input: 'earlier' }, {})).status).toBe(200);
    const after = await log.lastSeq(id);
    watching = true;
    const response = await postJson(server, path, { input: 'hello' }, { 'idempotency-key': 'm5' });
    expect(response.status).toBe(200);
    expect(seen).toEqual([after]);
    const [first] = await log.events(id, after, 1);
    expect(first).toMatchObject({ seq: after + 1, type: 'REPLY_START' });
    await server.close();
    log.close();
  });
});

/** The claim of `key` that an attempt which died long ago left for `body` on session `id`. */
async function deadClaim(log: SqliteServerLog, key: string, id: string, body: unknown) {
  const hold = { clock: () => new Date(0), claimLeaseMs: 1, logger: logTo([]) };
  const dead = idempotencyClaim('alice', key, id, body, hold);
  if (dead === undefined) throw new Error('no claim');
  expect(await log.claimIdempotency(dead, 0)).toBeUndefined();
  return dead;
}
