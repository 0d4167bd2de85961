// A message sent with an Idempotency-Key whose reply failed after it had
// started: a retry gets the first outcome again (the same error response
// with JSON, the same events with text/event-stream), never 409 running,
// and the reply is not run again.
import { InMemorySessionStore } from '@parley/core';
import type { AgentState, ChatChunk, ChatModel, SaveOptions } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { postJson, readFrames } from '../../test/support.js';
import { createServer } from './create-server.js';
import { idempotencyClaim } from '../idempotency/idempotency.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

/** A model that answers at once, or throws when told to; `calls` counts its calls. */
class CountingModel implements ChatModel {
  readonly name = 'counting';
  calls = 0;
  constructor(private readonly fails = false) {}
  async *stream(): AsyncGenerator<ChatChunk> {
    this.calls += 1;
    const delta = await Promise.resolve('Done.');
    if (this.fails) throw new Error('The model is down.');
    yield { type: 'text_delta', delta };
    yield { type: 'finish', finishedReason: 'stop' };
  }
}

/** A store that fails to save any state holding the text `explode` (as a full disk would). */
class ExplodingStore extends InMemorySessionStore {
  override async save(
    sessionId: string,
    state: AgentState,
    expectedVersion: number,
    options?: SaveOptions,
  ): Promise<number> {
    if (JSON.stringify(state.context).includes('explode')) throw new Error('disk full');
    return super.save(sessionId, state, expectedVersion, options);
  }
}

const authenticate = () => ({ id: 'alice' });
const quiet = () => undefined;
const logger = { debug: quiet, info: quiet, warn: quiet, error: quiet };
const sse = { accept: 'text/event-stream', 'idempotency-key': 'k' };
const json = { 'idempotency-key': 'k' };

/** A server on a fresh store and log, one session, and the path of its replies. */
async function setUp(model: CountingModel, store = new InMemorySessionStore()) {
  const log = new SqliteServerLog({ path: ':memory:' });
  const server = createServer({
    store,
    log,
    agent: { name: 'assistant', model },
    authenticate,
    logger,
  });
  const created = await server.fetch(
    new Request('http://parley.test/v1/sessions', { method: 'POST' }),
  );
  const { id } = (await created.json()) as { id: string };
  const close = async () => {
    await server.close();
    log.close();
  };
  return { server, log, id, path: `/v1/sessions/${id}/replies`, close };
}

async function outcome(response: Response) {
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.text(),
  };
}

describe('a keyed message whose reply failed', () => {
  it('gives a JSON retry the same error response, and a stream the same events', async () => {
    const model = new CountingModel();
    const { server, log, id, path, close } = await setUp(model, new ExplodingStore());
    const message = { input: 'explode' };
    const first = await outcome(await postJson(server, path, message, json));
    expect(first).toMatchObject({ status: 500, type: 'application/problem+json' });
    expect(JSON.parse(first.body)).toMatchObject({ code: 'internal' });
    const stored = await log.events(id, 0, 100);
    expect(stored[0]?.type).toBe('REPLY_START');

    expect(await outcome(await postJson(server, path, message, json))).toEqual(first);
    const frames = await readFrames(await postJson(server, path, message, sse));
    expect(frames.map((frame) => Number(frame.id))).toEqual(stored.map((event) => event.seq));
    // Nothing ran again (the reply failed at its first save, before any model call).
    expect(await log.events(id, 0, 100)).toEqual(stored);
    expect(model.calls).toBe(0);
    await close();
  });

  it('gives a streamed first attempt the same events again, and JSON its error', async () => {
    const model = new CountingModel();
    const { server, log, id, path, close } = await setUp(model, new ExplodingStore());
    const message = { input: 'explode' };
    const first = await readFrames(await postJson(server, path, message, sse));
    expect(first[0]?.event).toBe('REPLY_START');
    const stored = await log.events(id, 0, 100);

    expect(await readFrames(await postJson(server, path, message, sse))).toEqual(first);
    const retried = await outcome(await postJson(server, path, message, json));
    expect(retried).toMatchObject({ status: 500, type: 'application/problem+json' });
    expect(JSON.parse(retried.body)).toMatchObject({ code: 'internal' });
    expect(await log.events(id, 0, 100)).toEqual(stored);
    await close();
  });

  it('gives a JSON retry of a failure settled with no response (by a build before) a 500', async () => {
    const model = new CountingModel();
    const { server, log, id, path, close } = await setUp(model);
    const message = { input: 'hello' };
    const hold = { clock: () => new Date(0), claimLeaseMs: 1, logger };
    const claim = idempotencyClaim('alice', 'k', id, message, hold);
    if (claim === undefined) throw new Error('no claim');
    expect(await log.claimIdempotency(claim, 0)).toBeUndefined();
    await log.settleIdempotency({ ...claim, after: 0, lastSeq: 0, response: null });
    const retried = await outcome(await postJson(server, path, message, json));
    expect(retried).toMatchObject({ status: 500, type: 'application/problem+json' });
    expect(JSON.parse(retried.body)).toMatchObject({ code: 'internal' });
    expect(model.calls).toBe(0);
    await close();
  });

  it('gives a reply that ended with an error the same message again', async () => {
    const model = new CountingModel(true);
    const { server, path, close } = await setUp(model);
    const message = { input: 'hello' };
    const first = await outcome(await postJson(server, path, message, json));
    expect(first).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(first.body)).toMatchObject({ message: { finishedReason: 'error' } });
    expect(await outcome(await postJson(server, path, message, json))).toEqual(first);
    expect(model.calls).toBe(1);
    await close();
  });
});
