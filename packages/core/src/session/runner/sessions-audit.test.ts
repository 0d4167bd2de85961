import { describe, expect, it } from 'vitest';
import {
  AskUser,
  Toolkit,
  externalExecutionResultEvent,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../../index.js';
import type { AgentOptions, AuditRecord, PermissionRule } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { sha256Hex } from './sha256.js';
import { Sessions } from './sessions.js';
import { RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const AT = '2030-05-01T10:00:00.000Z';
const clock = (): Date => new Date(AT);
const input = (path: string): string => JSON.stringify({ path, content: 'hello' });
const writeCall = (id: string, path: string) => ({
  id,
  name: 'write_file',
  input: { path, content: 'hello' },
});
const allowWrites: PermissionRule = {
  toolName: 'write_file',
  ruleContent: null,
  behavior: 'allow',
  source: 'user',
};

function setup(
  turns: ConstructorParameters<typeof ScriptedModel>[0],
  options: Partial<AgentOptions> = {},
) {
  const runs = new Map<string, number>();
  const store = new RecordingStore();
  const model = new ScriptedModel(turns);
  const toolkit = new Toolkit([writeFileTool(runs), AskUser]);
  const sessions = new Sessions({ store, clock, agent: { model, toolkit, ...options } });
  return { runs, store, sessions };
}

const decisions = (records: AuditRecord[]): string[] => records.map((r) => r.decision);

describe('Sessions audit trail', () => {
  it('records asked, confirmed and executed, each with the save of its state change', async () => {
    const { sessions, store } = setup([
      { toolCalls: [writeCall('tc1', 'a.txt')] },
      { text: 'done' },
    ]);
    await sessions.reply('s1', 'write');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    await sessions.reply('s1', event, { approver: 'ada@example.com' });
    const trail = await sessions.audit('s1');
    const base = {
      sessionId: 's1',
      replyId,
      toolCallId: 'tc1',
      toolName: 'write_file',
      inputDigest: sha256Hex(input('a.txt')),
      at: AT,
    };
    expect(trail).toStrictEqual([
      {
        ...base,
        decision: 'asked',
        approver: null,
        detail: { suggestedRules: [{ ...allowWrites, source: 'suggested' }] },
      },
      { ...base, decision: 'confirmed', approver: 'ada@example.com' },
      { ...base, decision: 'executed', approver: null, detail: { state: 'success' } },
    ]);
    const carried = store.saves.map((save) => [save.status, save.decisions]);
    expect(carried).toStrictEqual([
      ['running', []],
      ['parked', ['asked']],
      ['running', ['confirmed']],
      ['running', ['executed']],
      ['idle', []],
    ]);
  });

  it('records an edited input (before and after), the rule added, then the rule allowing', async () => {
    const { sessions, runs } = setup([
      { toolCalls: [writeCall('tc1', 'a.txt')] },
      { toolCalls: [writeCall('tc2', 'b.txt')] },
      { text: 'done' },
    ]);
    await sessions.reply('s1', 'write two');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    const [call] = calls;
    if (call === undefined) throw new Error('no call');
    const edited = { ...call, input: input('safe/a.txt') };
    await sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId,
        confirmResults: [{ confirmed: true, toolCall: edited, rules: [allowWrites] }],
      }),
      { approver: 'ada' },
    );
    expect([...runs.keys()]).toStrictEqual(['tc1', 'tc2']);
    const trail = await sessions.audit('s1');
    expect(decisions(trail)).toStrictEqual([
      'asked',
      'input_edited',
      'confirmed',
      'rule_added',
      'executed',
      'allowed_by_rule',
      'executed',
    ]);
    expect(trail[1]).toMatchObject({
      approver: 'ada',
      inputDigest: sha256Hex(input('safe/a.txt')),
      detail: {
        before: { name: 'write_file', input: input('a.txt') },
        after: { name: 'write_file', input: input('safe/a.txt') },
      },
    });
    expect(trail[2]?.inputDigest).toBe(sha256Hex(input('safe/a.txt')));
    expect(trail[3]).toMatchObject({ approver: 'ada', detail: { rule: allowWrites } });
    expect(trail[5]).toMatchObject({
      toolCallId: 'tc2',
      approver: null,
      detail: { rule: allowWrites },
    });
  });

  it('records a denial with its reason and the approver', async () => {
    const { sessions, runs } = setup([{ toolCalls: [writeCall('tc1', 'a.txt')] }, { text: 'ok' }]);
    await sessions.reply('s1', 'write');
    const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
    await sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId,
        confirmResults: calls.map((toolCall) => ({
          confirmed: false,
          toolCall,
          reason: 'not now',
        })),
      }),
      { approver: 'bob' },
    );
    expect(runs.size).toBe(0);
    const trail = await sessions.audit('s1');
    expect(decisions(trail)).toStrictEqual(['asked', 'denied']);
    expect(trail[1]).toMatchObject({ approver: 'bob', detail: { reason: 'not now' } });
  });

  it('records decisions made by a rule or the mode, with no approver', async () => {
    const deny: PermissionRule = { ...allowWrites, behavior: 'deny', ruleContent: null };
    const byRule = setup([{ toolCalls: [writeCall('tc1', 'a.txt')] }, { text: 'ok' }], {
      permission: { rules: [deny] },
    });
    await byRule.sessions.reply('s1', 'write');
    const explore = setup([{ toolCalls: [writeCall('tc1', 'a.txt')] }, { text: 'ok' }], {
      permission: { mode: 'explore' },
    });
    await explore.sessions.reply('s1', 'write');
    const bypass = setup([{ toolCalls: [writeCall('tc1', 'a.txt')] }, { text: 'ok' }], {
      permission: { mode: 'bypass' },
    });
    await bypass.sessions.reply('s1', 'write');
    expect(await byRule.sessions.audit('s1')).toMatchObject([
      { decision: 'denied_by_rule', approver: null, detail: { rule: deny } },
    ]);
    expect(await explore.sessions.audit('s1')).toMatchObject([
      { decision: 'denied_by_mode', approver: null, detail: { reason: 'mode: explore' } },
    ]);
    expect(decisions(await bypass.sessions.audit('s1'))).toStrictEqual([
      'allowed_by_mode',
      'executed',
    ]);
  });

  it('records an interruption by the person who interrupted', async () => {
    const { sessions } = setup([{ toolCalls: [writeCall('tc1', 'a.txt')] }]);
    await sessions.reply('s1', 'write');
    const { replyId } = parkedCalls((await sessions.load('s1'))?.state);
    await sessions.reply('s1', userInterruptEvent({ replyId }), { approver: 'carol' });
    expect(await sessions.audit('s1')).toMatchObject([
      { decision: 'asked' },
      { decision: 'interrupted', approver: 'carol', detail: { reason: 'interrupted' } },
    ]);
  });

  it('records an external result as executed outside, by whoever sent it', async () => {
    const question = {
      questions: [
        {
          question: 'Which?',
          header: 'Pick',
          options: [
            { label: 'A', description: 'a' },
            { label: 'B', description: 'b' },
          ],
        },
      ],
    };
    const { sessions } = setup([
      { toolCalls: [{ id: 'ask1', name: 'AskUser', input: question }] },
      { text: 'thanks' },
    ]);
    await sessions.reply('s1', 'ask');
    const state = (await sessions.load('s1'))?.state;
    const replyId = state?.reply?.replyId ?? '';
    await sessions.reply(
      's1',
      externalExecutionResultEvent({
        replyId,
        executionResults: [
          {
            type: 'tool_result',
            id: 'ask1',
            name: 'AskUser',
            output: 'Pick: A',
            state: 'success',
            metadata: { answers: [{ question: 'Which?', selected: ['A'], other: null }] },
          },
        ],
      }),
      { approver: 'dave' },
    );
    expect(await sessions.audit('s1')).toMatchObject([
      { decision: 'allowed_by_mode', toolName: 'AskUser', approver: null },
      { decision: 'executed', approver: 'dave', detail: { external: true, state: 'success' } },
    ]);
  });
});
