import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  InvalidInputError,
  SessionBusyError,
  StaleReplyError,
  StaleSessionError,
  Toolkit,
  textOf,
  userConfirmResultEvent,
} from '../../index.js';
import type { SessionStore } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { GatedModel, RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const START = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number): string => new Date(START + ms).toISOString();

/** Two runners on one store, as two processes would have; `later` runs its clock `offset` ms ahead. */
function twoProcesses(options: { lease?: number; offset?: number } = {}) {
  const store = new RecordingStore();
  const model = new GatedModel();
  const clock = () => new Date(START);
  const first = new Sessions({ store, clock, agent: { name: 'assistant', model }, ...options });
  const later = () => new Date(START + (options.offset ?? 0));
  const second = new Sessions({
    store,
    clock: later,
    agent: { name: 'assistant', model: new ScriptedModel([{ text: 'second' }]) },
    ...options,
  });
  return { store, model, first, second };
}

describe('Sessions: leases on running replies, across processes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('saves a running reply with a lease and clears it when the reply ends', async () => {
    const { store, model, first } = twoProcesses();
    const running = first.reply('s1', 'Write the note');
    await model.started;
    expect(await store.load('s1')).toMatchObject({
      state: { reply: { status: 'running' } },
      leaseUntil: at(30_000),
    });
    model.release();
    await running;
    expect((await store.load('s1'))?.leaseUntil).toBeUndefined();
  });

  it('refuses a call while another process holds the lease, writing nothing', async () => {
    const { store, model, first, second } = twoProcesses({ offset: 29_999 });
    const running = first.reply('s1', 'Write the note');
    await model.started;
    const version = (await store.load('s1'))?.version;
    const busy = await second.reply('s1', 'Me too').catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect(busy).toMatchObject({ sessionId: 's1', leaseUntil: at(30_000) });
    expect(String(busy)).toContain(`in another process (its lease runs to ${at(30_000)})`);
    const resumed = await second.reply('s1').catch((error: unknown) => error);
    expect(resumed).toBeInstanceOf(SessionBusyError);
    expect((await store.load('s1'))?.version).toBe(version);
    model.release();
    expect(textOf(await running)).toBe('done');
  });

  it('refuses an answer to a reply another process is running as no longer parked', async () => {
    const runs = new Map<string, number>();
    const store = new RecordingStore();
    const toolkit = new Toolkit([writeFileTool(runs)]);
    const model = new GatedModel();
    const write = { id: 'tc1', name: 'write_file', input: { path: 'a', content: 'b' } };
    const asking = new Sessions({
      store,
      agent: { name: 'assistant', model: new ScriptedModel([{ toolCalls: [write] }]), toolkit },
    });
    await asking.reply('s1', 'Write the note');
    const { replyId, calls } = parkedCalls((await store.load('s1'))?.state);
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    const first = new Sessions({ store, agent: { name: 'assistant', model, toolkit } });
    const running = first.reply('s1', event, { approver: 'tab-1' });
    await model.started; // the tool ran; the model is answering
    const second = new Sessions({ store, agent: { name: 'assistant', model, toolkit } });
    const stale = await second
      .reply('s1', event, { approver: 'tab-2' })
      .catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(StaleReplyError);
    model.release();
    expect(textOf(await running)).toBe('done');
    expect([...runs]).toStrictEqual([['tc1', 1]]);
  });

  it('settles a running reply once its lease has run out, as a stopped process left it', async () => {
    const { store, model, first, second } = twoProcesses({ offset: 30_001 });
    const running = first.reply('s1', 'Write the note');
    await model.started;
    expect(textOf(await second.reply('s1', 'Are you there?'))).toBe('second');
    // The first process was alive after all: its next write loses the race.
    model.release();
    await expect(running).rejects.toThrow(StaleSessionError);
    expect((await store.load('s1'))?.state.context.at(-1)).toMatchObject({
      content: [{ type: 'text', text: 'second' }],
    });
  });

  it('renews the lease every third of it while the reply runs', async () => {
    vi.useFakeTimers({ now: START, toFake: ['Date', 'setInterval', 'clearInterval'] });
    const store = new RecordingStore();
    const model = new GatedModel();
    const sessions = new Sessions({ store, agent: { name: 'assistant', model }, lease: 3_000 });
    const running = sessions.reply('s1', 'Write the note');
    await model.started;
    const version = (await store.load('s1'))?.version;
    expect((await store.load('s1'))?.leaseUntil).toBe(at(3_000));
    await vi.advanceTimersByTimeAsync(2_500);
    expect(await store.load('s1')).toMatchObject({ version, leaseUntil: at(5_000) });
    model.release();
    await running;
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await store.load('s1'))?.leaseUntil).toBeUndefined();
  });

  it('writes no lease with lease 0, or on a store that cannot renew one', async () => {
    const { store, model, first } = twoProcesses({ lease: 0 });
    const running = first.reply('s1', 'Write the note');
    await model.started;
    expect((await store.load('s1'))?.leaseUntil).toBeUndefined();
    model.release();
    await running;

    const inner = new RecordingStore();
    const plain: SessionStore = {
      load: (id) => inner.load(id),
      save: (id, state, version, options) => inner.save(id, state, version, options),
    };
    const gated = new GatedModel();
    const sessions = new Sessions({ store: plain, agent: { name: 'assistant', model: gated } });
    const other = sessions.reply('s1', 'Write the note');
    await gated.started;
    expect((await inner.load('s1'))?.leaseUntil).toBeUndefined();
    gated.release();
    await other;
  });

  it('refuses a lease that is no duration', () => {
    const store = new RecordingStore();
    const agent = { name: 'assistant', model: new GatedModel() };
    expect(() => new Sessions({ store, agent, lease: -1 })).toThrow(InvalidInputError);
    expect(() => new Sessions({ store, agent, lease: Number.NaN })).toThrow(InvalidInputError);
  });
});
