import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PermissionEngine,
  permissionMessages,
  tool,
  userConfirmResultEvent,
} from '../src/index.js';
import type {
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
} from '../src/index.js';
import { asked, collect, makeWriteNote, ofType, setup } from './support.js';

const input = z.object({ arg: z.string() });
type Input = z.output<typeof input>;
const call: Input = { arg: 'x' };

/** A tool with an optional own check that counts how often it was consulted. */
function subject(
  name: string,
  own?: PermissionDecision,
  options: { readOnly?: boolean } = {},
): { tool: PermissionSubject<Input>; consulted: () => number } {
  let count = 0;
  const built = tool({
    name,
    description: name,
    input,
    readOnly: options.readOnly ?? false,
    checkPermissions: () => {
      count += 1;
      return own ?? { behavior: 'passthrough', message: '' };
    },
    matchRule: (content, { arg }) => arg === content,
    execute: async () => 'ran',
  });
  return { tool: built, consulted: () => count };
}

const rule = (
  toolName: string,
  behavior: PermissionRule['behavior'],
  ruleContent: string | null = null,
): PermissionRule => ({ toolName, ruleContent, behavior, source: 'test' });

const suggestion = (toolName: string): PermissionRule => ({
  toolName,
  ruleContent: null,
  behavior: 'allow',
  source: 'suggested',
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
const askingModes: PermissionMode[] = ['default', 'accept_edits'];
const explore = (name: string) => `Permission denied for ${name} (explore mode is read-only)`;
const dontAsk = (name: string) =>
  `Permission denied for ${name} (dont_ask mode - user not available)`;
const dontAskConverted = (name: string) =>
  `Permission denied for ${name} (dont_ask mode - ASK converted to DENY, user not available)`;

describe('the verbatim messages (SPEC 6)', () => {
  it('are exactly as written', () => {
    expect(permissionMessages.denyRule('Bash')).toBe('Permission to use Bash has been denied');
    expect(permissionMessages.ruleReason('git:*', 'Bash')).toBe('Rule: git:*');
    expect(permissionMessages.ask('Bash')).toBe('Permission required for Bash');
    expect(permissionMessages.readOnly('Bash')).toBe(
      'Permission granted for Bash (read-only invocation)',
    );
    expect(permissionMessages.explore('Bash')).toBe(explore('Bash'));
    expect(permissionMessages.dontAsk('Bash')).toBe(dontAsk('Bash'));
    expect(permissionMessages.dontAskConverted('Bash')).toBe(dontAskConverted('Bash'));
  });
});

describe('step 1, deny rules: deny in every mode (SPEC 6)', () => {
  it.each(allModes)('%s', async (mode) => {
    for (const [name, own, readOnly] of [
      ['plain', undefined, false],
      ['ro', undefined, true],
      ['own_allow', { behavior: 'allow', message: 'Tool says yes' }, false],
    ] as const) {
      const { tool: t } = subject(name, own, { readOnly });
      const decision = await engineFor(mode, [rule(name, 'deny'), rule(name, 'allow')]).check(
        t,
        call,
      );
      expect(decision).toMatchObject({
        behavior: 'deny',
        message: `Permission to use ${name} has been denied`,
        decisionReason: `Rule: ${name}`,
      });
    }
    const { tool: t } = subject('plain');
    expect(await engineFor(mode, [rule('plain', 'deny', 'x')]).check(t, call)).toMatchObject({
      behavior: 'deny',
      message: 'Permission to use plain has been denied',
      decisionReason: 'Rule: x',
    });
  });
});

describe('step 2, ask rules (SPEC 6)', () => {
  it.each(askingModes)(
    '%s: ask, with no suggestion (no allow rule can clear an ask rule)',
    async (mode) => {
      const { tool: t } = subject('plain');
      const decision = await engineFor(mode, [rule('plain', 'ask', 'x')]).check(t, call);
      expect(decision).toMatchObject({
        behavior: 'ask',
        message: 'Permission required for plain',
        decisionReason: 'Rule: x',
      });
      expect(decision.suggestedRules ?? []).toEqual([]);
    },
  );

  it('explore: ask, without suggestions', async () => {
    const { tool: t } = subject('plain');
    const decision = await engineFor('explore', [rule('plain', 'ask')]).check(t, call);
    expect(decision).toMatchObject({ behavior: 'ask', message: 'Permission required for plain' });
    expect(decision.suggestedRules).toBeUndefined();
  });

  it('bypass: ask (an ask rule still asks)', async () => {
    const { tool: t } = subject('plain');
    expect(await engineFor('bypass', [rule('plain', 'ask')]).check(t, call)).toMatchObject({
      behavior: 'ask',
      message: 'Permission required for plain',
    });
  });

  it('dont_ask: deny, ASK converted, with the suggestions kept', async () => {
    const { tool: t } = subject('plain');
    expect(await engineFor('dont_ask', [rule('plain', 'ask')]).check(t, call)).toMatchObject({
      behavior: 'deny',
      message: dontAskConverted('plain'),
      suggestedRules: [suggestion('plain')],
    });
  });

  it('an ask rule comes before the read-only allow and before allow rules', async () => {
    const { tool: t } = subject('ro', undefined, { readOnly: true });
    expect(
      await engineFor('default', [rule('ro', 'ask'), rule('ro', 'allow')]).check(t, call),
    ).toMatchObject({ behavior: 'ask' });
  });
});

describe('step 3, read-only invocations: allow in every mode (SPEC 6)', () => {
  it.each(allModes)('%s', async (mode) => {
    const { tool: t, consulted } = subject(
      'ro',
      { behavior: 'deny', message: 'never asked' },
      { readOnly: true },
    );
    expect(await engineFor(mode).check(t, call)).toMatchObject({
      behavior: 'allow',
      message: 'Permission granted for ro (read-only invocation)',
    });
    expect(consulted()).toBe(0);
  });
});

describe("step 4, the tool's own check (SPEC 6)", () => {
  const allow: PermissionDecision = { behavior: 'allow', message: 'Tool says yes' };
  const deny: PermissionDecision = { behavior: 'deny', message: 'Tool says no' };
  const safety: PermissionDecision = {
    behavior: 'ask',
    message: 'Dangerous',
    bypassImmune: true,
    suggestedRules: [suggestion('own')],
  };
  const ask: PermissionDecision = {
    behavior: 'ask',
    message: 'Tool wants to ask',
    suggestedRules: [suggestion('own')],
  };

  it.each(['default', 'accept_edits', 'bypass', 'dont_ask'] as const)(
    '%s: allow and deny are taken as they are',
    async (mode) => {
      expect(await engineFor(mode).check(subject('own', allow).tool, call)).toMatchObject(allow);
      expect(await engineFor(mode).check(subject('own', deny).tool, call)).toMatchObject(deny);
    },
  );

  it('explore: not consulted; everything not read-only is denied', async () => {
    for (const own of [allow, deny, safety, ask]) {
      const { tool: t, consulted } = subject('own', own);
      expect(await engineFor('explore', [rule('own', 'allow')]).check(t, call)).toEqual({
        behavior: 'deny',
        message: explore('own'),
        decisionReason: 'mode: explore',
      });
      expect(consulted()).toBe(0);
    }
  });

  it.each(askingModes)(
    '%s: a safety ask is returned, with no suggestion, even over an allow rule',
    async (mode) => {
      const decision = await engineFor(mode, [rule('own', 'allow')]).check(
        subject('own', safety).tool,
        call,
      );
      expect(decision).toMatchObject({ behavior: 'ask', message: 'Dangerous', bypassImmune: true });
      expect(decision.suggestedRules).toBeUndefined();
    },
  );

  it('bypass: a safety ask is still returned as ask', async () => {
    expect(
      await engineFor('bypass', [rule('own', 'allow')]).check(subject('own', safety).tool, call),
    ).toMatchObject({ behavior: 'ask', message: 'Dangerous', bypassImmune: true });
  });

  it('dont_ask: a safety ask becomes a deny', async () => {
    expect(await engineFor('dont_ask').check(subject('own', safety).tool, call)).toMatchObject({
      behavior: 'deny',
      message: dontAskConverted('own'),
    });
  });

  it.each(askingModes)(
    '%s: another ask goes on to the allow rules, then asks with its own message',
    async (mode) => {
      expect(
        await engineFor(mode, [rule('own', 'allow')]).check(subject('own', ask).tool, call),
      ).toMatchObject({ behavior: 'allow' });
      expect(await engineFor(mode).check(subject('own', ask).tool, call)).toMatchObject({
        behavior: 'ask',
        message: 'Tool wants to ask',
        suggestedRules: [suggestion('own')],
      });
    },
  );

  it('bypass: asks are ignored', async () => {
    expect(await engineFor('bypass').check(subject('own', ask).tool, call)).toMatchObject({
      behavior: 'allow',
    });
  });

  it('dont_ask: another ask goes on and ends in the dont_ask deny', async () => {
    expect(await engineFor('dont_ask').check(subject('own', ask).tool, call)).toMatchObject({
      behavior: 'deny',
      message: dontAsk('own'),
    });
  });
});

describe('step 5, allow rules (SPEC 6)', () => {
  it.each(['default', 'accept_edits', 'bypass', 'dont_ask'] as const)('%s: allow', async (mode) => {
    expect(
      await engineFor(mode, [rule('plain', 'allow', 'x')]).check(subject('plain').tool, call),
    ).toMatchObject({ behavior: 'allow', decisionReason: 'Rule: x' });
  });

  it('explore: not consulted', async () => {
    expect(
      await engineFor('explore', [rule('plain', 'allow')]).check(subject('plain').tool, call),
    ).toMatchObject({ behavior: 'deny', message: explore('plain') });
  });
});

describe('step 6, the fallback (SPEC 6)', () => {
  it.each(askingModes)('%s: ask, with the suggestions', async (mode) => {
    expect(await engineFor(mode).check(subject('plain').tool, call)).toEqual({
      behavior: 'ask',
      message: 'Permission required for plain',
      suggestedRules: [suggestion('plain')],
    });
  });

  it('explore: deny', async () => {
    expect(await engineFor('explore').check(subject('plain').tool, call)).toMatchObject({
      behavior: 'deny',
      message: explore('plain'),
    });
  });

  it('bypass: allow', async () => {
    expect(await engineFor('bypass').check(subject('plain').tool, call)).toMatchObject({
      behavior: 'allow',
    });
  });

  it('dont_ask: deny, user not available', async () => {
    expect(await engineFor('dont_ask').check(subject('plain').tool, call)).toMatchObject({
      behavior: 'deny',
      message: dontAsk('plain'),
    });
  });
});

describe('rule matching (SPEC 6)', () => {
  it('a rule with ruleContent null matches every call of its tool', async () => {
    const engine = engineFor('default', [rule('plain', 'allow')]);
    for (const arg of ['x', 'y', '']) {
      expect((await engine.check(subject('plain').tool, { arg })).behavior).toBe('allow');
    }
  });

  it("otherwise the tool's matchRule decides, on the parsed input", async () => {
    const engine = engineFor('default', [rule('plain', 'allow', 'x')]);
    expect((await engine.check(subject('plain').tool, { arg: 'x' })).behavior).toBe('allow');
    expect((await engine.check(subject('plain').tool, { arg: 'y' })).behavior).toBe('ask');
  });

  it('a rule of another tool never matches', async () => {
    const engine = engineFor('default', [rule('other', 'allow'), rule('other', 'deny')]);
    expect((await engine.check(subject('plain').tool, call)).behavior).toBe('ask');
  });

  it('a null rule matches even when the tool’s own matchRule would refuse null', async () => {
    const strict: PermissionSubject<Input> = {
      name: 'strict',
      isReadOnly: () => false,
      checkPermissions: () => ({ behavior: 'passthrough', message: '' }),
      matchRule: (content) => content === 'only this',
      suggestRules: () => [suggestion('strict')],
    };
    expect(
      (await engineFor('default', [rule('strict', 'deny')]).check(strict, call)).behavior,
    ).toBe('deny');
  });

  it('addRule files a rule by its behavior, once', () => {
    const engine = new PermissionEngine();
    engine.addRule(rule('a', 'allow'));
    engine.addRule(rule('a', 'allow'));
    engine.addRule(rule('b', 'deny', 'x'));
    engine.addRule(rule('c', 'ask'));
    expect(engine.context.allowRules).toEqual([rule('a', 'allow')]);
    expect(engine.context.denyRules).toEqual([rule('b', 'deny', 'x')]);
    expect(engine.context.askRules).toEqual([rule('c', 'ask')]);
  });
});

describe('suggestions are offered only when they would clear the ask (SPEC 6, 7)', () => {
  it('a suggestion that would not match the call is not offered', async () => {
    const t = tool({
      name: 'picky',
      description: 'picky',
      input,
      matchRule: (content, { arg }) => arg === content,
      suggestRules: () => [
        {
          toolName: 'picky',
          ruleContent: 'something else',
          behavior: 'allow',
          source: 'suggested',
        },
      ],
      execute: async () => 'ran',
    });
    const decision = await engineFor('default').check(t, call);
    expect(decision.behavior).toBe('ask');
    expect(decision.suggestedRules).toEqual([]);
  });

  it('a suggestion that matches is offered as an allow rule', async () => {
    const t = tool({
      name: 'picky',
      description: 'picky',
      input,
      matchRule: (content, { arg }) => arg === content,
      suggestRules: ({ arg }) => [
        { toolName: 'picky', ruleContent: arg, behavior: 'allow', source: 'suggested' },
      ],
      execute: async () => 'ran',
    });
    const decision = await engineFor('default').check(t, call);
    expect(decision.suggestedRules).toEqual([
      { toolName: 'picky', ruleContent: 'x', behavior: 'allow', source: 'suggested' },
    ]);
    const engine = engineFor('default');
    for (const suggested of decision.suggestedRules ?? []) engine.addRule(suggested);
    expect((await engine.check(t, call)).behavior).toBe('allow');
  });

  it('a safety ask offers no suggestion', async () => {
    const { tool: t } = subject('own', {
      behavior: 'ask',
      message: 'Dangerous',
      bypassImmune: true,
      suggestedRules: [suggestion('own')],
    });
    expect((await engineFor('default').check(t, call)).suggestedRules).toBeUndefined();
  });
});

describe('modes through an agent (SPEC 6)', () => {
  const writeCall = { id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } };

  it('dont_ask: a call that would ask is denied, and the model reads why', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'ok' }], [makeWriteNote()], {
      permission: { mode: 'dont_ask' },
    });
    const events = await collect(agent.replyStream('go'));
    expect(asked(events)).toEqual([]);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe(dontAsk('write_note'));
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('denied');
  });

  it('explore: a call that is not read-only is denied with the explore message', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'ok' }], [makeWriteNote()], {
      permission: { mode: 'explore' },
    });
    const events = await collect(agent.replyStream('go'));
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe(explore('write_note'));
  });

  it('bypass: a custom tool runs without asking', async () => {
    const log: string[] = [];
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'ok' }], [makeWriteNote(log)], {
      permission: { mode: 'bypass' },
    });
    await agent.reply('go');
    expect(log).toEqual(['a=b']);
  });

  it("accept_edits: the tool's own check sees the mode and the working directories", async () => {
    const log: string[] = [];
    const edit = tool({
      name: 'edit',
      description: 'Edit a file.',
      input: z.object({ path: z.string() }),
      checkPermissions: ({ path }, context) =>
        context.mode === 'accept_edits' &&
        context.workingDirectories.some((dir) => path.startsWith(`${dir}/`))
          ? { behavior: 'allow', message: 'Inside the working directory' }
          : { behavior: 'passthrough', message: '' },
      execute: async ({ path }) => {
        log.push(path);
        return 'edited';
      },
    });
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'e1', name: 'edit', input: { path: '/work/a.txt' } },
            { id: 'e2', name: 'edit', input: { path: '/etc/passwd' } },
          ],
        },
      ],
      [edit],
      { permission: { mode: 'accept_edits', workingDirectories: ['/work'] } },
    );
    const events = await collect(agent.replyStream('go'));
    expect(log).toEqual(['/work/a.txt']);
    expect(asked(events).map((c) => c.id)).toEqual(['e2']);
  });
});

describe('allowedBy: how an allowed call was allowed', () => {
  it('the engine says it on every allow', async () => {
    const readOnly = subject('reader', undefined, { readOnly: true }).tool;
    expect((await engineFor('default').check(readOnly, call)).allowedBy).toBe('readOnly');
    const plain = subject('plain').tool;
    expect(
      (await engineFor('default', [rule('plain', 'allow')]).check(plain, call)).allowedBy,
    ).toBe('rule');
    expect((await engineFor('bypass').check(plain, call)).allowedBy).toBe('mode');
    const own = subject('own', { behavior: 'allow', message: 'fine' }).tool;
    expect((await engineFor('accept_edits').check(own, call)).allowedBy).toBe('mode');
    const byOwnRule = subject('own', {
      behavior: 'allow',
      message: 'fine',
      matchedRule: rule('Write', 'allow', '/a/**'),
    }).tool;
    expect((await engineFor('default').check(byOwnRule, call)).allowedBy).toBe('rule');
  });

  it("reaches the tool's execute: the mode's allow, then a person's yes", async () => {
    const seen: (string | undefined)[] = [];
    const recorder = tool({
      name: 'recorder',
      description: 'records how it was allowed',
      input,
      checkPermissions: ({ arg }) =>
        arg === 'own'
          ? { behavior: 'allow', message: 'fine' }
          : { behavior: 'passthrough', message: '' },
      execute: async (_input, context) => {
        seen.push(context.allowedBy);
        return 'ran';
      },
    });
    const { agent } = setup(
      [
        { toolCalls: [{ id: 'a', name: 'recorder', input: { arg: 'own' } }] },
        { toolCalls: [{ id: 'b', name: 'recorder', input: { arg: 'asks' } }] },
        { text: 'done' },
      ],
      [recorder],
    );
    const first = await collect(agent.replyStream('go'));
    const ask = ofType(first, 'REQUIRE_USER_CONFIRM')[0]!;
    await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: ask.toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
        }),
      ),
    );
    expect(seen).toEqual(['mode', 'user']);
  });
});
