import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FixedRuleError,
  InvalidEventError,
  Toolkit,
  tool,
  userConfirmResultEvent,
} from '../../index.js';
import type { PermissionRule, SessionsOptions } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { RecordingStore, parkedCalls, writeFileTool } from './test-fixtures.js';

const WRITE = { id: 'tc1', name: 'write_file', input: { path: 'notes/a.txt', content: 'hello' } };
const denyWipe: PermissionRule = {
  toolName: 'wipe',
  ruleContent: null,
  behavior: 'deny',
  source: 'policy',
};

/** A session parked on one write_file call; `wipe` is denied by the operator's policy. */
async function parked(options: Partial<SessionsOptions> = {}, rules: PermissionRule[] = []) {
  const runs = new Map<string, number>();
  const wiped: string[] = [];
  const wipe = tool({
    name: 'wipe',
    description: 'Wipe everything.',
    input: z.object({}),
    execute: (_input, context) => {
      wiped.push(context.toolCallId);
      return 'wiped';
    },
  });
  const store = new RecordingStore();
  const toolkit = new Toolkit([writeFileTool(runs), wipe]);
  const model = new ScriptedModel([{ toolCalls: [WRITE] }, { text: 'done' }]);
  const sessions = new Sessions({
    store,
    agent: { name: 'assistant', model, toolkit, permission: { rules: [denyWipe, ...rules] } },
    ...options,
  });
  await sessions.reply('s1', 'Write the note');
  const { replyId, calls } = parkedCalls((await store.load('s1'))?.state);
  const [call] = calls;
  if (call === undefined) throw new Error('no waiting call');
  return { runs, wiped, store, sessions, replyId, call };
}

describe('Sessions: an answer confirms, denies or edits the call it names, nothing more', () => {
  it('refuses a confirmation that renames the call into a denied tool; nothing is stored or run', async () => {
    const { runs, wiped, store, sessions, replyId, call } = await parked();
    const before = await store.load('s1');
    const saves = store.saves.length;
    const renamed = { ...call, name: 'wipe', input: '{}' };
    const refused = await sessions
      .reply(
        's1',
        userConfirmResultEvent({
          replyId,
          confirmResults: [{ confirmed: true, toolCall: renamed }],
        }),
        { approver: 'eve' },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidEventError);
    expect(refused).toMatchObject({ path: 'confirmResults.0.toolCall.name' });
    expect(wiped).toStrictEqual([]);
    expect(runs.size).toBe(0);
    expect(store.saves.length).toBe(saves);
    expect(await store.load('s1')).toStrictEqual(before);
    expect((await sessions.audit('s1')).map((record) => record.decision)).toStrictEqual(['asked']);
  });

  it("with keptRules 'suggested', refuses a rule not suggested with the call; a suggested one is kept", async () => {
    const { runs, store, sessions, replyId, call } = await parked({ keptRules: 'suggested' });
    const before = await store.load('s1');
    const unsuggested: PermissionRule = {
      toolName: 'delete_notes',
      ruleContent: null,
      behavior: 'allow',
      source: 'suggested',
    };
    const refused = await sessions
      .reply(
        's1',
        userConfirmResultEvent({
          replyId,
          confirmResults: [{ confirmed: true, toolCall: call, rules: [unsuggested] }],
        }),
        { approver: 'eve' },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidEventError);
    expect(refused).toMatchObject({
      path: 'confirmResults.0.rules.0',
      message: expect.stringContaining("only a rule suggested with tool call 'tc1'"),
    });
    expect(await store.load('s1')).toStrictEqual(before);
    expect(runs.size).toBe(0);

    expect(call.suggestedRules.length).toBeGreaterThan(0);
    await sessions.reply(
      's1',
      userConfirmResultEvent({
        replyId,
        confirmResults: [{ confirmed: true, toolCall: call, rules: call.suggestedRules }],
      }),
      { approver: 'ada' },
    );
    expect([...runs]).toStrictEqual([['tc1', 1]]);
    const added = (await sessions.audit('s1')).filter((r) => r.decision === 'rule_added');
    expect(added).toMatchObject([{ toolCallId: 'tc1', toolName: 'write_file', approver: 'ada' }]);
  });

  it('keeps a deny rule in force over an edited input, and the trail says which rule denied it', async () => {
    const denyB: PermissionRule = {
      toolName: 'write_file',
      ruleContent: null,
      behavior: 'deny',
      source: 'session',
    };
    const { runs, store, sessions, replyId, call } = await parked();
    // The rule arrives while the call waits (as a deny added by a person's answer elsewhere).
    const loaded = await store.load('s1');
    if (loaded === undefined) throw new Error('no session');
    const permission = loaded.state.permission;
    if (permission === undefined) throw new Error('no permission context');
    await store.save(
      's1',
      {
        ...loaded.state,
        permission: { ...permission, denyRules: [...permission.denyRules, denyB] },
      },
      loaded.version,
    );
    const edited = { ...call, input: '{"path":"notes/b.txt","content":"hello"}' };
    await sessions.reply(
      's1',
      userConfirmResultEvent({ replyId, confirmResults: [{ confirmed: true, toolCall: edited }] }),
      { approver: 'ada' },
    );
    expect(runs.size).toBe(0);
    const trail = (await sessions.audit('s1')).map(({ decision, approver }) => ({
      decision,
      approver,
    }));
    expect(trail).toStrictEqual([
      { decision: 'asked', approver: null },
      { decision: 'input_edited', approver: 'ada' },
      { decision: 'confirmed', approver: 'ada' },
      { decision: 'denied_by_rule', approver: null },
    ]);
  });

  it("refuses to revoke the operator's rules ('policy', or a source marked fixed); storing nothing", async () => {
    const house: PermissionRule = {
      toolName: 'write_file',
      ruleContent: 'secrets/**',
      behavior: 'deny',
      source: 'house',
    };
    const { store, sessions } = await parked({ fixedRuleSources: ['house'] }, [house]);
    const before = await store.load('s1');
    for (const rule of [denyWipe, house]) {
      const refused = await sessions
        .revokeRule('s1', rule, { approver: 'eve' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(FixedRuleError);
      expect(refused).toMatchObject({
        code: 'fixed_rule',
        sessionId: 's1',
        message: expect.stringContaining('set by the operator'),
      });
    }
    expect(await store.load('s1')).toStrictEqual(before);
    expect((await sessions.audit('s1')).map((r) => r.decision)).not.toContain('rule_revoked');
  });

  it('refuses an approver id that is not well-formed Unicode, storing nothing', async () => {
    const { store, sessions, replyId, call } = await parked();
    const before = await store.load('s1');
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: [{ confirmed: true, toolCall: call }],
    });
    await expect(sessions.reply('s1', event, { approver: 'eve\ud800' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(
      sessions.revokeRule('s1', denyWipe, { approver: '\udc00eve' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await store.load('s1')).toStrictEqual(before);
  });
});
