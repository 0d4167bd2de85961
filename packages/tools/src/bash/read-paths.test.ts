import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine, type PermissionRule } from '@parley/core';
import { createSandbox, type Sandbox } from '../../test/corpus.js';
import { Bash } from './bash-tool.js';

let sandbox: Sandbox;
let bash: Bash;
beforeAll(async () => {
  sandbox = createSandbox();
  bash = new Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  await bash.checkPermissions({ command: 'true' }, new PermissionEngine().context);
});
afterAll(() => sandbox.remove());

const rule = (
  toolName: string,
  behavior: PermissionRule['behavior'],
  ruleContent: string,
): PermissionRule => ({ toolName, ruleContent, behavior, source: 'test' });

const check = (
  command: string,
  rules: PermissionRule[] = [],
  mode: 'default' | 'explore' = 'default',
) =>
  new PermissionEngine({
    mode,
    workingDirectories: [sandbox.project],
    allowRules: rules.filter((r) => r.behavior === 'allow'),
    denyRules: rules.filter((r) => r.behavior === 'deny'),
    askRules: rules.filter((r) => r.behavior === 'ask'),
  }).check(bash, { command });

describe('Bash reads outside the working directories', () => {
  it('are allowed by a Read rule covering them, not by a Bash rule for the command', async () => {
    const file = path.join(sandbox.outside, 'secret.txt');
    expect((await check(`cat ${file}`, [rule('Bash', 'allow', 'cat:*')])).behavior).toBe('ask');
    expect((await check(`cat ${file} | wc -l`, [rule('Bash', 'allow', 'wc:*')])).behavior).toBe(
      'ask',
    );
    const allowed = await check(`cat ${file} | wc -l`, [
      rule('Read', 'allow', `${sandbox.outside}/**`),
    ]);
    expect(allowed).toMatchObject({ behavior: 'allow', message: 'Permission granted for Bash' });
  });

  it('still meet deny and ask rules on any of the commands', async () => {
    const file = path.join(sandbox.outside, 'secret.txt');
    expect((await check(`cat ${file} | wc -l`, [rule('Bash', 'deny', 'cat:*')])).behavior).toBe(
      'deny',
    );
    expect((await check(`cat ${file} | wc -l`, [rule('Bash', 'ask', 'wc:*')])).behavior).toBe(
      'ask',
    );
  });

  it('are denied in explore mode, with the reason', async () => {
    const decision = await check(`ls ${sandbox.outside}`, [], 'explore');
    expect(decision).toMatchObject({
      behavior: 'deny',
      message: 'Permission denied for Bash (explore mode is read-only)',
    });
    expect(decision.decisionReason).toContain('outside the working directories');
  });

  it('suggest the narrowest directories, one per place read', async () => {
    const decision = await check(
      `cat ${sandbox.outside}/secret.txt ${sandbox.home}/.bashrc; ls ${sandbox.outside}`,
    );
    expect(decision.suggestedRules).toEqual(
      [
        rule('Read', 'allow', `${sandbox.outside}/**`),
        rule('Read', 'allow', `${sandbox.home}/**`),
      ].map((suggested) => ({ ...suggested, source: 'suggested' })),
    );
  });

  it('make a line that also runs other commands ask, with the reason', async () => {
    const decision = await check(`npm run build < ${sandbox.outside}/secret.txt`, [
      rule('Bash', 'allow', 'npm run:*'),
    ]);
    expect(decision.behavior).toBe('ask');
    expect(decision.decisionReason).toContain('outside the working directories');
  });

  it('inside another working directory are harmless', async () => {
    const decision = await new PermissionEngine({
      workingDirectories: [sandbox.project, sandbox.outside],
    }).check(bash, { command: `cat ${sandbox.outside}/secret.txt` });
    expect(decision).toMatchObject({ behavior: 'allow', decisionReason: 'read-only' });
  });
});

describe('Bash reads of secrets', () => {
  it('name the secret, even when a Bash rule allows everything and the mode is bypass', async () => {
    const decision = await new PermissionEngine({
      mode: 'bypass',
      workingDirectories: [sandbox.project],
      allowRules: [{ toolName: 'Bash', ruleContent: null, behavior: 'allow', source: 'test' }],
    }).check(bash, { command: 'cat .env' });
    expect(decision).toEqual({
      behavior: 'ask',
      message: 'Permission required for Bash',
      decisionReason: `Safety: reads a secret: ${sandbox.project}/.env`,
      bypassImmune: true,
    });
  });

  it('show paths below home with ~', async () => {
    const decision = await check('cat ~/.ssh/id_rsa');
    expect(decision.decisionReason).toBe('Safety: reads a secret: ~/.ssh/id_rsa');
  });
});
