import { describe, expect, it } from 'vitest';
import {
  ReplyExpiredError,
  Toolkit,
  expiryTexts,
  textOf,
  userConfirmResultEvent,
} from '../../index.js';
import type { SessionStore, ToolResultBlock } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;

function setup(onExpire: 'deny' | 'interrupt' = 'deny') {
  let now = T0;
  const runs = new Map<string, number>();
  const store = new RecordingStore();
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'tc1', name: 'write_file', input: { path: 'a', content: 'b' } }] },
    { text: 'Nobody answered, so I did not write it.' },
  ]);
  const agent = { model, toolkit: new Toolkit([writeFileTool(runs)]), parkTimeout: HOUR, onExpire };
  const sessions = new Sessions({ store, clock: () => new Date(now), agent });
  return {
    runs,
    store,
    model,
    sessions,
    advance: (ms: number) => (now += ms),
    at: (ms: number) => new Date(T0 + ms),
  };
}

async function resultsOf(sessions: Sessions, id: string): Promise<ToolResultBlock[]> {
  const state = (await sessions.load(id))?.state;
  const message = state?.context.findLast((m) => m.role === 'assistant');
  if (message === undefined || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('Sessions expiry', () => {
  it('stores the deadline, and the sweep finds nothing before it', async () => {
    const { sessions, store, at } = setup();
    await sessions.reply('s1', 'write');
    expect((await store.load('s1'))?.state.reply?.deadline).toBe('2030-01-01T01:00:00.000Z');
    expect(await sessions.expireDue(at(HOUR - 1))).toStrictEqual({
      expired: [],
      skipped: [],
      failed: [],
    });
  });

  it('deny: the sweep closes the waiting call as denied and the model goes on', async () => {
    const { sessions, runs, model, at } = setup('deny');
    await sessions.reply('s1', 'write');
    expect(await sessions.expireDue(at(HOUR))).toStrictEqual({
      expired: ['s1'],
      skipped: [],
      failed: [],
    });
    expect(runs.size).toBe(0);
    expect((await resultsOf(sessions, 's1')).map((r) => [r.state, r.output])).toStrictEqual([
      ['denied', expiryTexts.denied('write_file')],
    ]);
    expect(model.requests).toHaveLength(2);
    const stored = await sessions.load('s1');
    expect(stored?.state.reply).toBeNull();
    expect(textOf(stored!.state.context.at(-1)!)).toBe('Nobody answered, so I did not write it.');
    expect(await sessions.audit('s1')).toMatchObject([
      { decision: 'asked' },
      {
        decision: 'expired',
        approver: null,
        detail: { state: 'denied', deadline: '2030-01-01T01:00:00.000Z' },
      },
    ]);
    expect((await sessions.expireDue(at(2 * HOUR))).expired).toStrictEqual([]);
  });

  it('interrupt: the sweep ends the reply without calling the model', async () => {
    const { sessions, model, at } = setup('interrupt');
    await sessions.reply('s1', 'write');
    await sessions.expireDue(at(HOUR + 1));
    expect(model.requests).toHaveLength(1);
    const stored = await sessions.load('s1');
    expect(stored?.state.context.at(-1)?.finishedReason).toBe('interrupted');
    expect((await resultsOf(sessions, 's1')).map((r) => r.state)).toStrictEqual(['interrupted']);
  });

  it('settles an expired reply when it is next touched and refuses the late answer', async () => {
    const { sessions, runs, advance } = setup();
    await sessions.reply('s1', 'write');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    advance(HOUR);
    const late = userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    const error = await sessions
      .reply('s1', late, { approver: 'ada' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplyExpiredError);
    expect(error).toMatchObject({ sessionId: 's1', replyId });
    expect(runs.size).toBe(0);
    const trail = await sessions.audit('s1');
    expect(trail.map((record) => record.decision)).toStrictEqual(['asked', 'expired']);
    expect((await sessions.load('s1'))?.state.reply).toBeNull();
  });

  it('refuses an answer that comes after a sweep settled the reply with ReplyExpiredError', async () => {
    const { sessions, runs, at } = setup();
    await sessions.reply('s1', 'write');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    await sessions.expireDue(at(HOUR));
    const late = userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    await expect(sessions.reply('s1', late)).rejects.toThrow(ReplyExpiredError);
    expect(runs.size).toBe(0);
  });

  it('accepts an answer a moment before the deadline', async () => {
    const { sessions, runs, advance } = setup();
    await sessions.reply('s1', 'write');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    advance(HOUR - 1);
    await sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId,
        confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
      }),
    );
    expect([...runs]).toStrictEqual([['tc1', 1]]);
  });

  it('skips a listed session that was answered in the meantime', async () => {
    const { sessions, store, at } = setup();
    await sessions.reply('s1', 'write');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    await sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId,
        confirmResults: calls.map((toolCall) => ({ confirmed: false, toolCall })),
      }),
    );
    // A store whose index still lists it (a sweep that read it just before the answer).
    const lagging: SessionStore = {
      load: (id) => store.load(id),
      save: (id, state, version, options) => store.save(id, state, version, options),
      listDue: async () => ['s1'],
    };
    const sweeper = new Sessions({ store: lagging, agent: { model: new ScriptedModel([]) } });
    expect(await sweeper.expireDue(at(2 * HOUR))).toStrictEqual({
      expired: [],
      skipped: ['s1'],
      failed: [],
    });
  });
});
