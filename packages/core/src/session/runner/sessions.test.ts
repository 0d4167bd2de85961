import { describe, expect, it } from 'vitest';
import {
  ConcurrentResumeError,
  InvalidStateError,
  StaleReplyError,
  StaleSessionError,
  StoreCapabilityError,
  Toolkit,
  agentTexts,
  textOf,
  userConfirmResultEvent,
} from '../../index.js';
import type { AgentState, SessionStore, ToolResultBlock } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const WRITE = { name: 'write_file', input: { path: 'notes/a.txt', content: 'hello' } };

function workload(options: { idempotent?: boolean } = {}) {
  const runs = new Map<string, number>();
  const store = new RecordingStore();
  const toolkit = new Toolkit([writeFileTool(runs, options)]);
  const model = new ScriptedModel([{ toolCalls: [{ id: 'tc1', ...WRITE }] }, { text: 'done' }]);
  const sessions = new Sessions({ store, agent: { name: 'assistant', model, toolkit } });
  // Another runner on the same store, as another process would have.
  const other = new Sessions({ store, agent: { name: 'assistant', model, toolkit } });
  return { runs, store, toolkit, model, sessions, other };
}

async function approve(sessions: Sessions, sessionId: string, approver = 'ada') {
  const { replyId, calls } = parkedCalls((await sessions.load(sessionId))?.state);
  const event = userConfirmResultEvent({
    replyId,
    confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
  });
  return { event, reply: () => sessions.reply(sessionId, event, { approver }) };
}

function results(state: AgentState | undefined): ToolResultBlock[] {
  const message = state?.context.at(-1);
  if (message === undefined || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('Sessions: one HITL round trip on a stored session', () => {
  it('parks, persists, and resumes on a fresh runner with the approval', async () => {
    const { runs, store, toolkit, model, sessions } = workload();
    const waiting = await sessions.reply('s1', 'Write the note');
    expect(waiting.finishedReason).toBeNull();
    expect((await store.load('s1'))?.state.reply?.status).toBe('parked');
    // The first runner is dropped; another (another process, say) answers.
    const fresh = new Sessions({ store, agent: { name: 'assistant', model, toolkit } });
    const answer = await (await approve(fresh, 's1')).reply();
    expect(textOf(answer)).toBe('done');
    expect([...runs]).toStrictEqual([['tc1', 1]]);
    const stored = await store.load('s1');
    expect(stored?.state.reply).toBeNull();
    expect(stored?.version).toBe(store.saves.length);
  });

  it('saves each step before anything slow or external follows it, strict where exactly-once rests', async () => {
    const { store, sessions } = workload();
    await sessions.reply('s1', 'Write the note');
    await (await approve(sessions, 's1')).reply();
    expect(store.saves.map(({ status, relaxed }) => [status, relaxed])).toStrictEqual([
      ['running', true], // reply_start, written before the model is called
      ['parked', false], // after_model + park, before anyone is asked
      ['running', false], // resume + before_tool: the claim, before the tool runs
      ['running', true], // after_tool, written before the model is called
      ['idle', false], // after_model + reply_end
    ]);
    expect(store.saves.map((save) => save.version)).toStrictEqual([1, 2, 3, 4, 5]);
  });

  it("with persist: 'boundaries', writes only the park, the claim and the end", async () => {
    const { store, toolkit, model, runs } = workload();
    const sessions = new Sessions({ store, persist: 'boundaries', agent: { model, toolkit } });
    await sessions.reply('s1', 'Write the note');
    await (await approve(sessions, 's1')).reply();
    expect(
      store.saves.map(({ status, relaxed, decisions }) => [status, relaxed, decisions]),
    ).toStrictEqual([
      ['parked', false, ['asked']],
      ['running', false, ['confirmed']],
      ['idle', false, ['executed']],
    ]);
    expect([...runs]).toStrictEqual([['tc1', 1]]);
  });

  it('claims a denial-only answer before the model is called', async () => {
    const { store, sessions, other, model } = workload();
    await sessions.reply('s1', 'Write the note');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    const denial = userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({ confirmed: false, toolCall })),
    });
    const requests = model.requests.length;
    const outcomes = await Promise.allSettled([
      sessions.reply('s1', denial),
      other.reply('s1', denial),
    ]);
    const rejected = outcomes.flatMap((outcome): unknown[] =>
      outcome.status === 'rejected' ? [outcome.reason] : [],
    );
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toBeInstanceOf(ConcurrentResumeError);
    expect(model.requests.length).toBe(requests + 1);
    expect(store.saves.at(-2)).toMatchObject({ status: 'running', relaxed: true });
  });

  it('refuses a second answer to the same reply with StaleReplyError, running nothing', async () => {
    const { runs, sessions, store } = workload();
    await sessions.reply('s1', 'Write the note');
    const first = await approve(sessions, 's1');
    await first.reply();
    const before = store.saves.length;
    const error = await sessions.reply('s1', first.event).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StaleReplyError);
    expect(runs.get('tc1')).toBe(1);
    expect(store.saves.length).toBe(before);
  });

  it('lets one of two simultaneous answers win; the other gets ConcurrentResumeError', async () => {
    const { runs, sessions, other } = workload();
    await sessions.reply('s1', 'Write the note');
    const { event } = await approve(sessions, 's1');
    const outcomes = await Promise.allSettled([
      sessions.reply('s1', event, { approver: 'tab-1' }),
      other.reply('s1', event, { approver: 'tab-2' }),
    ]);
    const rejected = outcomes.flatMap((outcome): unknown[] =>
      outcome.status === 'rejected' ? [outcome.reason] : [],
    );
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toBeInstanceOf(ConcurrentResumeError);
    expect(rejected[0]).toMatchObject({ code: 'concurrent_resume', sessionId: 's1' });
    expect([...runs]).toStrictEqual([['tc1', 1]]);
    const confirmed = (await sessions.audit('s1')).filter((r) => r.decision === 'confirmed');
    expect(confirmed).toHaveLength(1);
  });

  it('refuses an answer naming another reply', async () => {
    const { sessions } = workload();
    await sessions.reply('s1', 'Write the note');
    const { event } = await approve(sessions, 's1');
    const stale = { ...event, replyId: 'old-tab' };
    await expect(sessions.reply('s1', stale)).rejects.toThrow(StaleReplyError);
  });

  it('gives a losing new-input race StaleSessionError', async () => {
    const store = new RecordingStore();
    const model = new ScriptedModel([{ text: 'hi' }], { repeatLast: true });
    const sessions = new Sessions({ store, agent: { model } });
    const other = new Sessions({ store, agent: { model } });
    const outcomes = await Promise.allSettled([
      sessions.reply('s1', 'one'),
      other.reply('s1', 'two'),
    ]);
    const reasons = outcomes.flatMap((o): unknown[] => (o.status === 'rejected' ? [o.reason] : []));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(StaleSessionError);
  });
});

describe('Sessions: a process that stopped mid-reply', () => {
  /** The stored state of a process killed while its claimed tool ran. */
  async function killedWhileRunning(options: { idempotent?: boolean } = {}) {
    const setup = workload(options);
    await setup.sessions.reply('s1', 'Write the note');
    const stored = await setup.store.load('s1');
    const state = structuredClone(stored?.state);
    const message = state?.context.at(-1);
    if (state?.reply == null || message === undefined || typeof message.content === 'string') {
      throw new Error('no parked reply');
    }
    message.content = message.content.map((block) =>
      block.type === 'tool_call' ? { ...block, state: 'allowed' } : block,
    );
    state.reply.status = 'running';
    state.reply.executing = ['tc1'];
    await setup.store.save('s1', state, stored?.version ?? 0);
    return setup;
  }

  it('never runs a claimed call again: it is closed as interrupted, outcome unknown', async () => {
    const { runs, sessions, store } = await killedWhileRunning();
    const answer = await sessions.reply('s1');
    expect(textOf(answer)).toBe('done');
    expect(runs.size).toBe(0);
    const closed = results((await store.load('s1'))?.state);
    expect(closed.map((r) => [r.state, r.output])).toStrictEqual([
      ['interrupted', agentTexts.outcomeUnknown],
    ]);
    const audit = await sessions.audit('s1');
    expect(audit.filter((r) => r.decision === 'interrupted')).toMatchObject([
      { toolCallId: 'tc1', approver: null, detail: { reason: 'process_stopped' } },
    ]);
  });

  it('runs an idempotent tool again, once', async () => {
    const { runs, sessions } = await killedWhileRunning({ idempotent: true });
    await sessions.reply('s1');
    expect([...runs]).toStrictEqual([['tc1', 1]]);
  });

  it('refuses an answer to a reply a stopped process had already claimed', async () => {
    const { sessions, runs } = await killedWhileRunning();
    const error = await sessions
      .reply('s1', userConfirmResultEvent({ replyId: 'any', confirmResults: [] }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StaleReplyError);
    expect(runs.size).toBe(0);
  });
});

describe('Sessions: bad stored state and stores', () => {
  it('refuses a corrupt state with InvalidStateError naming the session, leaving it as it was', async () => {
    const { sessions, store } = workload();
    await sessions.reply('s1', 'Write the note');
    const stored = store.raw.sessions.get('s1');
    if (stored === undefined) throw new Error('not stored');
    const corrupt = { ...stored, state: stored.state.slice(0, 100) };
    store.raw.sessions.set('s1', corrupt);
    const error = await sessions.reply('s1', 'again').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(error).toMatchObject({ sessionId: 's1' });
    expect(store.raw.sessions.get('s1')).toStrictEqual(corrupt);
  });

  it('refuses a stored state that belongs to another session', async () => {
    const { sessions, store } = workload();
    await sessions.reply('s1', 'Write the note');
    const stored = store.raw.sessions.get('s1');
    if (stored === undefined) throw new Error('not stored');
    store.raw.sessions.set('s2', stored);
    await expect(sessions.reply('s2', 'hello')).rejects.toThrow(/belongs to session 's1'/);
  });

  it('says which method a minimal store lacks', async () => {
    const inner = new RecordingStore();
    const minimal: SessionStore = {
      load: (id) => inner.load(id),
      save: (id, state, version, options) => inner.save(id, state, version, options),
    };
    const sessions = new Sessions({ store: minimal, agent: { model: new ScriptedModel([]) } });
    expect(() => sessions.audit('s1')).toThrow(StoreCapabilityError);
    await expect(sessions.expireDue()).rejects.toThrow(/listDue/);
  });

  it('refuses an empty approver before loading anything', async () => {
    const { sessions } = workload();
    await expect(sessions.reply('s1', 'x', { approver: '' })).rejects.toThrow(/approver/);
  });

  it('persists a reply left early from the stream as interrupted', async () => {
    const store = new RecordingStore();
    const model = new ScriptedModel([{ text: 'a long answer' }]);
    const sessions = new Sessions({ store, agent: { model } });
    for await (const event of sessions.replyStream('s1', 'hello')) {
      if (event.type === 'REPLY_START') break;
    }
    const stored = await store.load('s1');
    expect(stored?.state.reply).toBeNull();
    expect(stored?.state.context.at(-1)?.finishedReason).toBe('interrupted');
  });
});
