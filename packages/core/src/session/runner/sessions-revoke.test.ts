import { describe, expect, it } from 'vitest';
import {
  SessionBusyError,
  Toolkit,
  UnknownRuleError,
  userConfirmResultEvent,
} from '../../index.js';
import type { PermissionRule } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { GatedModel, RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const AT = '2030-05-01T10:00:00.000Z';
const clock = (): Date => new Date(AT);
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

/** A session whose first write was confirmed with "always allow" by ada. */
async function sessionWithRule() {
  const runs = new Map<string, number>();
  const store = new RecordingStore();
  const model = new ScriptedModel([
    { toolCalls: [writeCall('tc1', 'a.txt')] },
    { text: 'written' },
    { toolCalls: [writeCall('tc2', 'b.txt')] },
    { text: 'asked again' },
  ]);
  const toolkit = new Toolkit([writeFileTool(runs)]);
  const sessions = new Sessions({ store, clock, agent: { model, toolkit } });
  await sessions.reply('s1', 'write a');
  const { replyId, calls } = parkedCalls((await sessions.load('s1'))?.state);
  await sessions.reply(
    's1',
    userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => ({
        confirmed: true,
        toolCall,
        rules: [allowWrites],
      })),
    }),
    { approver: 'ada' },
  );
  return { sessions, store, runs, replyId };
}

describe('Sessions.revokeRule', () => {
  it('removes the rule, records who revoked it, and the next call asks again', async () => {
    const { sessions, store, runs, replyId } = await sessionWithRule();
    expect((await sessions.load('s1'))?.state.permission?.allowRules).toStrictEqual([allowWrites]);
    const record = await sessions.revokeRule(
      's1',
      { toolName: 'write_file', ruleContent: null, behavior: 'allow' },
      { approver: 'bob' },
    );
    expect(record).toMatchObject({ decision: 'rule_revoked', approver: 'bob', replyId });
    expect(store.saves.at(-1)?.decisions).toStrictEqual(['rule_revoked']);
    expect((await sessions.load('s1'))?.state.permission?.allowRules).toStrictEqual([]);
    const trail = await sessions.audit('s1');
    const added = trail.find((entry) => entry.decision === 'rule_added');
    expect(trail.at(-1)).toStrictEqual({
      sessionId: 's1',
      replyId,
      toolCallId: 'tc1',
      toolName: 'write_file',
      decision: 'rule_revoked',
      inputDigest: added?.inputDigest,
      approver: 'bob',
      at: AT,
      detail: { rule: allowWrites },
    });
    await sessions.reply('s1', 'write b');
    expect((await sessions.load('s1'))?.state.reply?.status).toBe('parked');
    expect([...runs.keys()]).toStrictEqual(['tc1']);
  });

  it('refuses an unknown rule with UnknownRuleError and stores nothing', async () => {
    const { sessions, store } = await sessionWithRule();
    const before = await sessions.load('s1');
    const saves = store.saves.length;
    for (const rule of [
      { toolName: 'write_file', ruleContent: 'a.txt', behavior: 'allow' as const },
      { toolName: 'write_file', ruleContent: null, behavior: 'deny' as const },
      { toolName: 'Bash', ruleContent: null, behavior: 'allow' as const },
    ]) {
      const error = await sessions.revokeRule('s1', rule).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnknownRuleError);
      expect(error).toMatchObject({ code: 'unknown_rule', sessionId: 's1' });
    }
    const none = await sessions
      .revokeRule('nope', { toolName: 'write_file', ruleContent: null, behavior: 'allow' })
      .catch((caught: unknown) => caught);
    expect(none).toBeInstanceOf(UnknownRuleError);
    expect(store.saves.length).toBe(saves);
    expect(await sessions.load('s1')).toStrictEqual(before);
    expect((await sessions.audit('s1')).map((r) => r.decision)).not.toContain('rule_revoked');
  });

  it('refuses while a reply of the session runs, here or under a lease', async () => {
    const store = new RecordingStore();
    const model = new GatedModel();
    const rules = [allowWrites];
    const sessions = new Sessions({
      store,
      agent: { name: 'assistant', model, permission: { rules } },
    });
    const running = sessions.reply('s1', 'go');
    await model.started;
    const saves = store.saves.length;
    const rule = { toolName: 'write_file', ruleContent: null, behavior: 'allow' as const };
    const here = await sessions.revokeRule('s1', rule).catch((caught: unknown) => caught);
    expect(here).toBeInstanceOf(SessionBusyError);
    const elsewhere = new Sessions({ store, agent: { name: 'assistant', model } });
    const leased = await elsewhere.revokeRule('s1', rule).catch((caught: unknown) => caught);
    expect(leased).toBeInstanceOf(SessionBusyError);
    expect(leased).toMatchObject({ code: 'session_busy' });
    expect(store.saves.length).toBe(saves);
    model.release();
    await running;
    const stored = await sessions.load('s1');
    expect(stored?.state.permission?.allowRules).toStrictEqual([allowWrites]);
    await sessions.revokeRule('s1', rule, { approver: 'ada' });
    expect((await sessions.load('s1'))?.state.permission?.allowRules).toStrictEqual([]);
    const trail = await sessions.audit('s1');
    expect(trail.at(-1)).toMatchObject({ decision: 'rule_revoked', toolCallId: 'rule' });
  });

  it('refuses an empty approver', async () => {
    const { sessions } = await sessionWithRule();
    const error = await sessions
      .revokeRule(
        's1',
        { toolName: 'write_file', ruleContent: null, behavior: 'allow' },
        { approver: '' },
      )
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'invalid_input' });
  });
});
