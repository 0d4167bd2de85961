import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PermissionEngine,
  type PermissionContext,
  type PermissionMode,
  type PermissionRule,
} from '@parley/core';
import { temporaryDirectory } from '../../test/context.js';
import { Bash } from './bash-tool.js';

const rule = (
  ruleContent: string | null,
  behavior: PermissionRule['behavior'] = 'allow',
  toolName = 'Bash',
): PermissionRule => ({
  toolName,
  ruleContent,
  behavior,
  source: 'test',
});

let root: { path: string; remove: () => void };
let project: string;
let bash: Bash;

beforeAll(async () => {
  root = temporaryDirectory();
  project = path.join(root.path, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(path.join(root.path, 'elsewhere'));
  writeFileSync(path.join(project, 'a.txt'), 'a\n');
  symlinkSync(path.join(root.path, 'elsewhere'), path.join(project, 'out'));
  bash = new Bash({ cwd: project, env: { HOME: path.join(root.path, 'home') } });
  await bash.checkPermissions({ command: 'true' }, new PermissionEngine().context);
});
afterAll(() => root.remove());

function engine(mode: PermissionMode, rules: PermissionRule[] = []): PermissionEngine {
  const context: Partial<PermissionContext> = {
    mode,
    workingDirectories: [project],
    allowRules: rules.filter((item) => item.behavior === 'allow'),
    denyRules: rules.filter((item) => item.behavior === 'deny'),
    askRules: rules.filter((item) => item.behavior === 'ask'),
  };
  return new PermissionEngine(context);
}

const check = (command: string, mode: PermissionMode = 'default', rules: PermissionRule[] = []) =>
  engine(mode, rules).check(bash, { command });

describe('Bash as a Tool', () => {
  it('has the fixed name and a JSON schema with snake_case input', () => {
    expect(bash.name).toBe('Bash');
    expect(bash.external).toBe(false);
    expect(bash.jsonSchema()).toMatchObject({ type: 'object', required: ['command'] });
    expect(
      bash.inputSchema.safeParse({ command: 'ls', timeout: 5000, description: 'list' }).success,
    ).toBe(true);
    expect(bash.inputSchema.safeParse({ command: '' }).success).toBe(false);
  });

  it('is concurrency-safe only for read-only commands', () => {
    expect(bash.isConcurrencySafe({ command: 'ls' })).toBe(true);
    expect(bash.isConcurrencySafe({ command: 'npm test' })).toBe(false);
  });
});

describe('matchRule', () => {
  it('for a command that writes, matches only when the rule covers every sub-command', () => {
    expect(bash.matchRule('npm run:*', { command: 'npm run build' })).toBe(true);
    expect(bash.matchRule('npm run:*', { command: 'npm run build && npm publish' })).toBe(false);
    expect(bash.matchRule('npm:*', { command: 'npm run build && npm publish' })).toBe(true);
    expect(bash.matchRule('npm run:*', { command: 'npm run build > log.txt' })).toBe(false);
    expect(bash.matchRule('git:*', { command: 'git push $(id)' })).toBe(false);
  });

  it('for a read-only command, matches when the rule matches any command', () => {
    expect(bash.matchRule('cat:*', { command: 'cat a.txt | wc -l' })).toBe(true);
    expect(bash.matchRule('rm:*', { command: 'ls | grep x' })).toBe(false);
  });

  it('matches a null rule always', () => {
    expect(bash.matchRule(null, { command: 'anything; at all' })).toBe(true);
  });
});

describe('checkPermissions through the engine', () => {
  it('allows read-only commands in every mode, explore included', async () => {
    for (const mode of ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask'] as const) {
      expect((await check('git log | head', mode)).behavior).toBe('allow');
    }
  });

  it('allows a compound command when each part is allowed by some rule', async () => {
    const decision = await check('npm run build && git push', 'default', [
      rule('npm run:*'),
      rule('git push:*'),
    ]);
    expect(decision).toMatchObject({
      behavior: 'allow',
      decisionReason: 'Rule: npm run:*, git push:*',
    });
  });

  it('asks when one part is not allowed, suggesting a rule for that part only', async () => {
    const decision = await check('npm run build && npm publish --tag next', 'default', [
      rule('npm run:*'),
    ]);
    expect(decision.behavior).toBe('ask');
    expect(decision.suggestedRules?.map((item) => item.ruleContent)).toEqual(['npm publish:*']);
  });

  it('denies when a deny rule matches any part, wherever it hides', async () => {
    for (const command of [
      'ls; rm a.txt',
      'sudo rm a.txt',
      'xargs rm < list',
      "sh -c 'rm a.txt'",
      'find . -exec rm {} +',
      '/bin/rm a.txt',
    ]) {
      const decision = await check(command, 'bypass', [rule('rm:*', 'deny'), rule(null, 'allow')]);
      expect(decision, command).toMatchObject({
        behavior: 'deny',
        message: 'Permission to use Bash has been denied',
        decisionReason: 'Rule: rm:*',
      });
    }
  });

  it('lets an ask rule on one part win over an allow rule on all', async () => {
    const decision = await check('git add . && git push', 'default', [
      rule('git:*'),
      rule('git push:*', 'ask'),
    ]);
    expect(decision).toMatchObject({
      behavior: 'ask',
      decisionReason: 'Rule: git push:*',
      bypassImmune: true,
    });
    const dontAsk = await check('git add . && git push', 'dont_ask', [
      rule('git:*'),
      rule('git push:*', 'ask'),
    ]);
    expect(dontAsk).toMatchObject({
      behavior: 'deny',
      message:
        'Permission denied for Bash (dont_ask mode - ASK converted to DENY, user not available)',
    });
  });

  it('turns safety asks into denials in dont_ask mode and keeps them in bypass mode', async () => {
    expect(await check('rm -rf ../elsewhere', 'bypass')).toMatchObject({
      behavior: 'ask',
      bypassImmune: true,
    });
    expect(await check('rm -rf ../elsewhere', 'dont_ask')).toMatchObject({
      behavior: 'deny',
      bypassImmune: true,
    });
    expect(
      (await check('rm -rf ../elsewhere', 'default', [rule('rm:*')])).suggestedRules,
    ).toBeUndefined();
    expect(await check('rm -rf .', 'bypass')).toMatchObject({ bypassImmune: true });
    expect(await check('rm -rf .git', 'bypass')).toMatchObject({ bypassImmune: true });
  });

  it('takes /dev/stdout and /dev/stderr for the file fd 1 or 2 holds (issue 31, class 5)', async () => {
    expect((await check('echo pwned 3<a.txt >/dev/fd/3', 'default')).behavior).toBe('ask');
    for (const command of [
      'echo pwned 1<a.txt >/dev/stdout',
      'echo pwned 2<a.txt >>/dev/stderr',
      'echo pwned 1<a.txt 2>&1 >/dev/stderr',
    ]) {
      const decision = await check(command, 'default');
      expect(decision.behavior, command).toBe('ask');
      expect(decision.decisionReason, command).toContain('a.txt');
    }
    expect((await check('echo hi >/dev/stdout', 'default')).behavior).toBe('allow');
    expect((await check('echo hi >/dev/stderr 2>/dev/null', 'default')).behavior).toBe('allow');
  });

  it('treats command-line edits inside the working directories as edits (SPEC sections 6 and 7)', async () => {
    for (const command of ['sed -i s/a/b/ a.txt', "perl -pi -e 's/a/b/' a.txt", 'rm -rf src']) {
      expect((await check(command, 'accept_edits')).behavior, command).toBe('allow');
      expect((await check(command, 'bypass')).behavior, command).toBe('allow');
      const asked = await check(command, 'default');
      expect(asked.behavior, command).toBe('ask');
      expect(asked.bypassImmune, command).toBeUndefined();
      expect(asked.suggestedRules?.length, command).toBeGreaterThan(0);
    }
    expect((await check('sed -i s/a/b/ a.txt', 'default')).suggestedRules).toEqual([
      { ...rule('sed -i:*'), source: 'suggested' },
    ]);
    expect((await check("perl -pi -e 's/a/b/' a.txt", 'default')).suggestedRules).toEqual([
      { ...rule('perl -pi:*'), source: 'suggested' },
    ]);
    expect((await check('sed -i s/a/b/ a.txt', 'default', [rule('sed -i:*')])).behavior).toBe(
      'allow',
    );
    expect(await check("sed -i 's/a/b/w ../x' a.txt", 'default', [rule('sed -i:*')])).toMatchObject(
      { behavior: 'ask', bypassImmune: true },
    );
    expect((await check('sed -i s/a/b/ ../elsewhere/x', 'accept_edits')).behavior).toBe('ask');
  });

  it('lets accept_edits allow file-system commands inside the working directories', async () => {
    expect((await check('mkdir -p src/new && touch src/new/a.ts', 'accept_edits')).behavior).toBe(
      'allow',
    );
    expect((await check('echo hi > src/b.txt', 'accept_edits')).behavior).toBe('allow');
    expect((await check('touch out/x', 'accept_edits')).behavior).toBe('ask');
    expect((await check('touch ../x', 'accept_edits')).behavior).toBe('ask');
    expect((await check('npm install', 'accept_edits')).behavior).toBe('ask');
  });

  it('counts the context working directories as well as the cwd', async () => {
    const elsewhere = path.join(root.path, 'elsewhere');
    const decision = await engine('accept_edits').check(bash, { command: `touch ${elsewhere}/x` });
    expect(decision.behavior).toBe('ask');
    const wider = new PermissionEngine({
      mode: 'accept_edits',
      workingDirectories: [project, elsewhere],
    });
    expect((await wider.check(bash, { command: `touch ${elsewhere}/x` })).behavior).toBe('allow');
  });

  it('grants a redirection by a Write rule, not by the rule for the command', async () => {
    expect((await check('cat a.txt > b.txt', 'default', [rule('cat:*')])).behavior).toBe('ask');
    const decision = await check('cat a.txt > b.txt', 'default', [
      rule('cat:*'),
      rule(`${project}/**`, 'allow', 'Write'),
    ]);
    expect(decision.behavior).toBe('allow');
    const suggested = (await check('npm run build > build.log', 'default', [rule('npm run:*')]))
      .suggestedRules;
    expect(suggested).toEqual([
      { toolName: 'Write', ruleContent: `${project}/**`, behavior: 'allow', source: 'suggested' },
    ]);
  });

  it('denies a redirection into a path a Write deny rule covers', async () => {
    const decision = await check('echo x > src/secret.ts', 'bypass', [
      rule(`${project}/src/**`, 'deny', 'Write'),
    ]);
    expect(decision).toMatchObject({ behavior: 'deny', decisionReason: `Rule: ${project}/src/**` });
  });

  it('suggests rules that allow the very call, and none for a bare word', async () => {
    const cases = [
      'docker compose up -d',
      'python3 -m pytest -q',
      'node scripts/build.js --watch',
      'FOO=1 make build',
      'time npm test',
      'mkdir -p dist && cp a.txt dist/',
    ];
    for (const command of cases) {
      const first = await check(command);
      expect(first.behavior, command).toBe('ask');
      const suggested = first.suggestedRules ?? [];
      expect(suggested.length, command).toBeGreaterThan(0);
      expect((await check(command, 'default', suggested)).behavior, command).toBe('allow');
    }
    expect((await check('make')).suggestedRules).toEqual([]);
    // An interpreter's code flags are never part of a suggestion (a later `-e` or `-r FILE` would ride on it).
    for (const command of [
      'python3 -c "print(1)"',
      "node -e 'x()'",
      "perl -e 'x'",
      'ruby -r ./x.rb y.rb',
      'awk \'{print > "o"}\' a',
    ]) {
      expect((await check(command)).suggestedRules, command).toEqual([]);
    }
    expect(
      (await check('docker compose up -d')).suggestedRules?.map((item) => item.ruleContent),
    ).toEqual(['docker compose:*']);
    expect((await check('time npm test')).suggestedRules?.map((item) => item.ruleContent)).toEqual([
      'npm test:*',
    ]);
  });

  it('offers no suggestion when the call writes outside the working directories', async () => {
    expect(await check('cp a.txt /tmp/x', 'default')).toMatchObject({
      behavior: 'ask',
      suggestedRules: [],
    });
  });

  it('suggests nothing for read-only parts', () => {
    expect(
      bash.suggestRules({ command: 'ls && npm run build' }).map((item) => item.ruleContent),
    ).toEqual(['npm run:*']);
    expect(bash.suggestRules({ command: 'ls -la' })).toEqual([]);
    expect(bash.suggestRules({ command: 'time npm test' }).map((item) => item.ruleContent)).toEqual(
      ['npm test:*'],
    );
  });

  it('treats /dev/null as no write at all', async () => {
    const rules = [rule('npm run:*'), rule('tee:*')];
    expect((await check('npm run build | tee /dev/null', 'default', rules)).behavior).toBe('allow');
  });
});
