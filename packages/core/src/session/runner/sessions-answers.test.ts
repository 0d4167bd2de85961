import { describe, expect, it } from 'vitest';
import {
  AnswerNotAllowedError,
  Toolkit,
  externalExecutionResultEvent,
  textOf,
  tool,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../../index.js';
import type { AnswerRequest, MayAnswer } from '../../index.js';
import { z } from 'zod';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const WRITE = { id: 'tc1', name: 'write_file', input: { path: 'notes/a.txt', content: 'hello' } };

/** A session parked on one write_file call, on a runner whose answers `mayAnswer` checks. */
async function parked(mayAnswer: MayAnswer) {
  const runs = new Map<string, number>();
  const store = new RecordingStore();
  const toolkit = new Toolkit([writeFileTool(runs)]);
  const model = new ScriptedModel([{ toolCalls: [WRITE] }, { text: 'done' }]);
  const sessions = new Sessions({ store, mayAnswer, agent: { name: 'assistant', model, toolkit } });
  await sessions.reply('s1', 'Write the note');
  const { replyId, calls } = parkedCalls((await store.load('s1'))?.state);
  const [call] = calls;
  if (call === undefined) throw new Error('no waiting call');
  return { runs, store, sessions, replyId, call };
}

describe('Sessions: who may answer', () => {
  it('refuses an answer mayAnswer refuses, applying nothing; someone allowed then answers', async () => {
    const seen: AnswerRequest[] = [];
    const { runs, store, sessions, replyId, call } = await parked((request) => {
      seen.push(request);
      return request.approver === 'ada';
    });
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: [{ confirmed: true, toolCall: call }],
    });
    const before = await store.load('s1');
    const refused = await sessions
      .reply('s1', event, { approver: 'mallory' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AnswerNotAllowedError);
    expect(refused).toMatchObject({
      code: 'answer_not_allowed',
      sessionId: 's1',
      replyId,
      toolCallId: 'tc1',
      approver: 'mallory',
    });
    expect(await store.load('s1')).toStrictEqual(before);
    expect(runs.size).toBe(0);
    await expect(sessions.reply('s1', event)).rejects.toThrow(/no approver may not answer/);

    expect(textOf(await sessions.reply('s1', event, { approver: 'ada' }))).toBe('done');
    expect([...runs]).toStrictEqual([['tc1', 1]]);
    expect(seen.map((request) => request.approver)).toStrictEqual(['mallory', null, 'ada']);
    expect(seen[2]).toStrictEqual({
      sessionId: 's1',
      replyId,
      approver: 'ada',
      toolCall: call,
      answer: { kind: 'confirm', toolCall: call, rules: [] },
    });
  });

  it('shows an edited input and accepted rules next to the call as asked', async () => {
    const seen: AnswerRequest[] = [];
    const { sessions, replyId, call } = await parked((request) => {
      seen.push(request);
      return true;
    });
    const edited = { ...call, input: '{"path":"notes/b.txt","content":"hello"}' };
    const rule = {
      toolName: 'write_file',
      ruleContent: null,
      behavior: 'allow' as const,
      source: 'session' as const,
    };
    await sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId,
        confirmResults: [{ confirmed: true, toolCall: edited, rules: [rule] }],
      }),
      { approver: 'ada' },
    );
    expect(seen).toMatchObject([
      { toolCall: call, answer: { kind: 'confirm', toolCall: edited, rules: [rule] } },
    ]);
  });

  it('asks about denials and interrupts too', async () => {
    const denials: AnswerRequest[] = [];
    const denying = await parked((request) => {
      denials.push(request);
      return true;
    });
    await denying.sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId: denying.replyId,
        confirmResults: [{ confirmed: false, toolCall: denying.call, reason: 'not now' }],
      }),
      { approver: 'ada' },
    );
    expect(denials.map(({ answer }) => answer)).toStrictEqual([
      { kind: 'deny', reason: 'not now' },
    ]);

    const interrupting = await parked((request) => request.answer.kind !== 'interrupt');
    const interrupt = userInterruptEvent({ replyId: interrupting.replyId });
    await expect(interrupting.sessions.reply('s1', interrupt)).rejects.toThrow(
      AnswerNotAllowedError,
    );
    expect((await interrupting.store.load('s1'))?.state.reply?.status).toBe('parked');
  });

  it('asks about external results, and lets a failing check reject the answer', async () => {
    const store = new RecordingStore();
    const search = tool({
      name: 'search',
      description: 'Searched by the client.',
      input: z.object({ q: z.string() }),
      readOnly: true, // allowed without asking: it goes straight to the client
      external: true,
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'x1', name: 'search', input: { q: 'parley' } }] },
      { text: 'found' },
    ]);
    let calls = 0;
    const sessions = new Sessions({
      store,
      agent: { name: 'assistant', model, toolkit: new Toolkit([search]) },
      mayAnswer: async ({ answer }) => {
        calls += 1;
        if (calls === 1) throw new Error('the directory is down');
        return answer.kind === 'external_result' && answer.result.state === 'success';
      },
    });
    await sessions.reply('s1', 'Search');
    const replyId = (await store.load('s1'))?.state.reply?.replyId ?? '';
    const result = externalExecutionResultEvent({
      replyId,
      executionResults: [
        { type: 'tool_result', id: 'x1', name: 'search', output: '3 hits', state: 'success' },
      ],
    });
    await expect(sessions.reply('s1', result)).rejects.toThrow('the directory is down');
    expect((await store.load('s1'))?.state.reply?.status).toBe('parked');
    expect(textOf(await sessions.reply('s1', result, { approver: 'client' }))).toBe('found');
  });
});
