import { describe, expect, it } from 'vitest';
import { PermissionEngine } from '../src/index.js';
import type {
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
} from '../src/index.js';

// Parley adds (SPEC 6, step 3): a read-only call whose reads need asking is
// not allowed as read-only. A secret read is a safety ask no rule or mode
// clears; an outside read asks like any other ask.

type Input = { path: string };

const secretRead: PermissionDecision = {
  behavior: 'ask',
  message: 'Permission required for reader',
  decisionReason: 'Safety: reads a secret: ~/.ssh/id_rsa',
  bypassImmune: true,
};
const outsideRead: PermissionDecision = {
  behavior: 'ask',
  message: 'Permission required for reader',
  decisionReason: 'outside the working directories: /notes/a.md',
};

/** A read-only tool whose reads are judged by `reads`; counts its own checks. */
function reader(
  reads: PermissionDecision | undefined,
  own: PermissionDecision = { behavior: 'passthrough', message: '' },
): { tool: PermissionSubject<Input>; consulted: () => number } {
  let count = 0;
  const subject: PermissionSubject<Input> = {
    name: 'reader',
    isReadOnly: () => true,
    checkReads: () => Promise.resolve(reads),
    checkPermissions: () => {
      count += 1;
      return own;
    },
    matchRule: (content, input) => content === input.path,
    suggestRules: (input) => [
      { toolName: 'reader', ruleContent: input.path, behavior: 'allow', source: 'suggested' },
    ],
  };
  return { tool: subject, consulted: () => count };
}

const rule = (
  behavior: PermissionRule['behavior'],
  ruleContent: string | null,
): PermissionRule => ({
  toolName: 'reader',
  ruleContent,
  behavior,
  source: 'test',
});

const engineFor = (mode: PermissionMode, rules: PermissionRule[] = []): PermissionEngine => {
  const context: Partial<PermissionContext> = {
    mode,
    allowRules: rules.filter((r) => r.behavior === 'allow'),
    denyRules: rules.filter((r) => r.behavior === 'deny'),
    askRules: rules.filter((r) => r.behavior === 'ask'),
  };
  return new PermissionEngine(context);
};

const allModes: PermissionMode[] = ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask'];
const call: Input = { path: '/notes/a.md' };

describe('harmless reads stay read-only (SPEC 6, step 3)', () => {
  it.each(allModes)('%s: allowed without consulting the own check', async (mode) => {
    const { tool, consulted } = reader(undefined, { behavior: 'deny', message: 'never asked' });
    expect(await engineFor(mode).check(tool, call)).toEqual({
      behavior: 'allow',
      message: 'Permission granted for reader (read-only invocation)',
      decisionReason: 'read-only',
      allowedBy: 'readOnly',
    });
    expect(consulted()).toBe(0);
  });
});

describe('a secret read is a safety ask that no rule or mode clears', () => {
  it.each(['default', 'accept_edits', 'bypass'] as const)(
    '%s: ask, bypass-immune, with the reason and no suggestion',
    async (mode) => {
      const { tool } = reader(secretRead);
      const decision = await engineFor(mode, [rule('allow', null)]).check(tool, call);
      expect(decision).toEqual(secretRead);
    },
  );

  it('explore: denied, with the reason', async () => {
    const { tool } = reader(secretRead);
    expect(await engineFor('explore').check(tool, call)).toEqual({
      behavior: 'deny',
      message: 'Permission denied for reader (explore mode is read-only)',
      decisionReason: 'mode: explore (Safety: reads a secret: ~/.ssh/id_rsa)',
    });
  });

  it('dont_ask: denied as a converted ask, even with an allow rule', async () => {
    const { tool } = reader(secretRead);
    const decision = await engineFor('dont_ask', [rule('allow', '/notes/a.md')]).check(tool, call);
    expect(decision).toMatchObject({
      behavior: 'deny',
      message:
        'Permission denied for reader (dont_ask mode - ASK converted to DENY, user not available)',
      decisionReason: 'Safety: reads a secret: ~/.ssh/id_rsa',
    });
  });

  it("the tool's own allow does not clear it", async () => {
    const { tool } = reader(secretRead, { behavior: 'allow', message: 'tool says yes' });
    expect(await engineFor('bypass').check(tool, call)).toEqual(secretRead);
  });

  it('a deny rule still denies and an ask rule still asks', async () => {
    const { tool } = reader(secretRead);
    expect(await engineFor('bypass', [rule('deny', null)]).check(tool, call)).toMatchObject({
      behavior: 'deny',
    });
    expect(await engineFor('bypass', [rule('ask', null)]).check(tool, call)).toMatchObject({
      behavior: 'ask',
    });
  });
});

describe('an outside read asks like any other ask', () => {
  it.each(['default', 'accept_edits'] as const)(
    '%s: ask, with the reason and a suggestion that clears it',
    async (mode) => {
      const { tool } = reader(outsideRead);
      expect(await engineFor(mode).check(tool, call)).toEqual({
        ...outsideRead,
        suggestedRules: [
          {
            toolName: 'reader',
            ruleContent: '/notes/a.md',
            behavior: 'allow',
            source: 'suggested',
          },
        ],
      });
    },
  );

  it('an allow rule allows it', async () => {
    const { tool } = reader(outsideRead);
    expect(
      await engineFor('default', [rule('allow', '/notes/a.md')]).check(tool, call),
    ).toMatchObject({ behavior: 'allow', message: 'Permission granted for reader' });
  });

  it('bypass: allowed', async () => {
    const { tool } = reader(outsideRead);
    expect(await engineFor('bypass').check(tool, call)).toMatchObject({ behavior: 'allow' });
  });

  it('explore: denied, with the reason', async () => {
    const { tool } = reader(outsideRead);
    expect(await engineFor('explore').check(tool, call)).toEqual({
      behavior: 'deny',
      message: 'Permission denied for reader (explore mode is read-only)',
      decisionReason: 'mode: explore (outside the working directories: /notes/a.md)',
    });
  });

  it('dont_ask: denied, with the reason', async () => {
    const { tool } = reader(outsideRead);
    expect(await engineFor('dont_ask').check(tool, call)).toEqual({
      behavior: 'deny',
      message: 'Permission denied for reader (dont_ask mode - user not available)',
      decisionReason: 'mode: dont_ask (outside the working directories: /notes/a.md)',
    });
  });

  it("the tool's own allow stands (a rule the tool weighs itself)", async () => {
    const own: PermissionDecision = { behavior: 'allow', message: 'granted by the tool' };
    const { tool, consulted } = reader(outsideRead, own);
    expect(await engineFor('default').check(tool, call)).toEqual({ ...own, allowedBy: 'mode' });
    expect(consulted()).toBe(1);
  });
});
