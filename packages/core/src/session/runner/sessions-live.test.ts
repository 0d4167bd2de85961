import { describe, expect, it } from 'vitest';
import {
  ConcurrentResumeError,
  SessionBusyError,
  Toolkit,
  textOf,
  userConfirmResultEvent,
} from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { GatedModel, RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

function gated() {
  const store = new RecordingStore();
  const model = new GatedModel();
  const sessions = new Sessions({ store, agent: { name: 'assistant', model } });
  return { store, model, sessions };
}

describe('Sessions: one reply at a time per session, in one process', () => {
  it('refuses a call on a session it is running with SessionBusyError, writing nothing', async () => {
    const { store, model, sessions } = gated();
    const first = sessions.reply('s1', 'Write the note');
    await model.started;
    const saves = store.saves.length;
    const second = await sessions.reply('s1', 'And another').catch((error: unknown) => error);
    expect(second).toBeInstanceOf(SessionBusyError);
    expect(second).toMatchObject({ code: 'session_busy', sessionId: 's1', leaseUntil: undefined });
    expect(store.saves.length).toBe(saves);
    model.release();
    expect(textOf(await first)).toBe('done');
    // Free again once the first reply is over.
    expect(textOf(await sessions.reply('s1', 'And another'))).toBe('done');
  });

  it('runs different sessions side by side', async () => {
    const { model, sessions } = gated();
    const first = sessions.reply('s1', 'one');
    const second = sessions.reply('s2', 'two');
    await model.started;
    model.release();
    const answers = await Promise.all([first, second]);
    expect(answers.map(textOf)).toStrictEqual(['done', 'done']);
  });

  it('frees the session when a call fails before its reply starts', async () => {
    const { sessions } = gated();
    await expect(sessions.reply('s1', 'x', { approver: '' })).rejects.toThrow(/approver/);
    const stale = userConfirmResultEvent({ replyId: 'nope', confirmResults: [] });
    await expect(sessions.reply('s1', stale)).rejects.toThrow();
    expect(await sessions.cancel('s1')).toBe(false);
  });

  it('refuses a second answer to the reply it is resuming with ConcurrentResumeError', async () => {
    const runs = new Map<string, number>();
    const store = new RecordingStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'tc1', name: 'write_file', input: { path: 'a', content: 'b' } }] },
      { text: 'done' },
    ]);
    const toolkit = new Toolkit([writeFileTool(runs)]);
    const sessions = new Sessions({ store, agent: { name: 'assistant', model, toolkit } });
    await sessions.reply('s1', 'Write the note');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    const outcomes = await Promise.allSettled([
      sessions.reply('s1', event, { approver: 'tab-1' }),
      sessions.reply('s1', event, { approver: 'tab-2' }),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled' });
    expect(outcomes[1]).toMatchObject({
      status: 'rejected',
      reason: { code: 'concurrent_resume', sessionId: 's1', replyId },
    });
    expect(outcomes[1]?.status === 'rejected' && outcomes[1].reason).toBeInstanceOf(
      ConcurrentResumeError,
    );
    expect([...runs]).toStrictEqual([['tc1', 1]]);
    const confirmed = (await sessions.audit('s1')).filter((r) => r.decision === 'confirmed');
    expect(confirmed.map((r) => r.approver)).toStrictEqual(['tab-1']);
  });
});

describe('Sessions.cancel', () => {
  it('stops the running reply, saves it closed, and frees the session', async () => {
    const { store, model, sessions } = gated();
    const running = sessions.reply('s1', 'Write the note');
    await model.started;
    expect(await sessions.cancel('s1')).toBe(true);
    const stopped = await running;
    expect(stopped.finishedReason).toBe('interrupted');
    const stored = await store.load('s1');
    expect(stored?.state.reply).toBeNull();
    expect(stored?.version).toBe(store.saves.length);
    model.release();
    expect(textOf(await sessions.reply('s1', 'Try again'))).toBe('done');
  });

  it('stops a streamed reply too, and says false when nothing runs', async () => {
    const { model, sessions } = gated();
    expect(await sessions.cancel('s1')).toBe(false);
    const types: string[] = [];
    const consumed = (async () => {
      for await (const event of sessions.replyStream('s1', 'Write the note'))
        types.push(event.type);
    })();
    await model.started;
    expect(await sessions.cancel('s1')).toBe(true);
    await consumed;
    expect(types.at(-1)).toBe('REPLY_END');
    expect(await sessions.cancel('s1')).toBe(false);
  });

  it('leaves the caller signal working alongside it', async () => {
    const { store, model, sessions } = gated();
    const controller = new AbortController();
    const running = sessions.reply('s1', 'Write the note', { signal: controller.signal });
    await model.started;
    controller.abort();
    expect((await running).finishedReason).toBe('interrupted');
    expect((await store.load('s1'))?.state.reply).toBeNull();
  });
});
