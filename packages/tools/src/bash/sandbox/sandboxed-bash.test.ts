import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine, type PermissionMode, type PermissionRule } from '@parley/core';
import { runSandboxTests } from '../../../test/bubblewrap-ready.js';
import { collect, temporaryDirectory, toolContext } from '../../../test/context.js';
import { SandboxUnavailableError } from '../../errors.js';
import { Bash } from '../bash-tool.js';
import { environmentCaches } from './policy.js';
import { GIT_ENV } from '../../../test/sandbox-fixtures.js';

let root: { path: string; remove: () => void };
let project: string;
let home: string;
let outside: string;

beforeAll(() => {
  root = temporaryDirectory('parley-sandboxed-');
  project = path.join(root.path, 'project');
  home = path.join(root.path, 'home');
  outside = path.join(root.path, 'outside');
  for (const dir of [project, home, outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(project, 'README.md'), 'readme\n');
  writeFileSync(path.join(home, '.bashrc'), '# watched\n');
});
afterAll(() => root.remove());

const run = (bash: Bash, command: string, sandbox?: boolean) =>
  collect(bash.execute({ command, ...(sandbox === undefined ? {} : { sandbox }) }, toolContext()));

describe('Bash without a sandbox', () => {
  it('runs bare when bubblewrap is missing, says so once, and reports no sandbox', async () => {
    const warnings: string[] = [];
    const bash = new Bash({
      cwd: project,
      env: { HOME: home },
      sandbox: { bubblewrap: path.join(root.path, 'no-such-bwrap') },
    });
    const context = toolContext();
    const logger = { ...context.logger, warn: (message: string) => void warnings.push(message) };
    expect(bash.sandboxKind).toBe('none');
    for (let i = 0; i < 2; i++) {
      const result = await collect(
        bash.execute({ command: 'cat README.md' }, { ...context, logger }),
      );
      expect(result.text).toBe('readme\n');
      expect(result.metadata).toMatchObject({
        sandbox: { kind: 'none', policy: 'outside', blocked: [] },
      });
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Bash runs commands without a sandbox: .*no-such-bwrap/);
  });

  it('refuses to run when the sandbox is required, saying how to install bubblewrap', async () => {
    const bash = new Bash({
      cwd: project,
      sandbox: { mode: 'required', bubblewrap: path.join(root.path, 'no-such-bwrap') },
    });
    const error = await run(bash, 'cat README.md').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(error).toMatchObject({ code: 'sandbox_unavailable' });
    expect(String(error)).toContain('apt-get install bubblewrap');
  });

  it('with the setting off reports no sandbox', async () => {
    const bash = new Bash({ cwd: project, sandbox: 'off' });
    expect(bash.sandboxKind).toBe('none');
    const result = await run(bash, 'cat README.md');
    expect(result.metadata).toMatchObject({ sandbox: { kind: 'none', policy: 'outside' } });
  });
});

describe('sandbox: false on the call', () => {
  const rule = (content: string, behavior: PermissionRule['behavior']): PermissionRule => ({
    toolName: 'Bash',
    ruleContent: content,
    behavior,
    source: 'test',
  });
  const check = async (
    command: string,
    mode: PermissionMode,
    rules: PermissionRule[] = [],
    sandbox?: boolean,
  ) => {
    const bash = new Bash({ cwd: project, env: { HOME: home } });
    const engine = new PermissionEngine({
      mode,
      workingDirectories: [project],
      allowRules: rules.filter((item) => item.behavior === 'allow'),
      denyRules: rules.filter((item) => item.behavior === 'deny'),
      askRules: [],
    });
    await bash.checkPermissions({ command: 'true' }, engine.context);
    return engine.check(bash, { command, ...(sandbox === undefined ? {} : { sandbox }) });
  };

  it('always asks, even for a read-only line or one an allow rule covers', async () => {
    expect((await check('cat README.md', 'default')).behavior).toBe('allow');
    expect((await check('cat README.md', 'default', [], false)).behavior).toBe('ask');
    const allowEcho = [rule('echo:*', 'allow')];
    expect((await check('echo hi > out.txt', 'accept_edits', allowEcho)).behavior).toBe('allow');
    const outside = await check('echo hi > out.txt', 'accept_edits', allowEcho, false);
    expect(outside).toMatchObject({
      behavior: 'ask',
      decisionReason: expect.stringContaining('outside the sandbox'),
    });
  });

  it('is allowed in bypass mode only, and deny rules still deny', async () => {
    expect((await check('cat README.md', 'bypass', [], false)).behavior).toBe('allow');
    expect((await check('cat README.md', 'explore', [], false)).behavior).toBe('deny');
    expect((await check('cat README.md', 'bypass', [rule('cat:*', 'deny')], false)).behavior).toBe(
      'deny',
    );
  });
});

describe.runIf(runSandboxTests)('Bash in the sandbox', () => {
  it('says in words what the sandbox blocked, and records it', async () => {
    const bash = new Bash({ cwd: project, env: { HOME: home } });
    expect(bash.sandboxKind).toBe('bubblewrap');
    // Piped into a shell: nothing the analysis can name, so nothing granted.
    const outsideFile = `/var/tmp/parley-blocked-${process.pid}.txt`;
    const result = await run(bash, `printf 'echo x >> ~/.bashrc; touch ${outsideFile}' | bash`);
    rmSync(outsideFile, { force: true });
    expect(result.text).toContain(
      `blocked by the sandbox: write to ~/.bashrc; write to ${outsideFile}`,
    );
    expect(result.text).toContain('sandbox: false');
    expect(result.metadata).toMatchObject({
      sandbox: {
        kind: 'bubblewrap',
        policy: 'write',
        network: false,
        blocked: ['write to ~/.bashrc', `write to ${outsideFile}`],
      },
    });
    expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# watched\n');
  });

  it('runs a read-only line with the read-only policy and sandbox: false bare', async () => {
    const bash = new Bash({ cwd: project, env: { HOME: home } });
    const inside = await run(bash, 'ps -e -o pid= | wc -l');
    expect(inside.metadata).toMatchObject({ sandbox: { policy: 'read-only' } });
    expect(Number(inside.text.trim())).toBeLessThanOrEqual(4);
    const bare = await run(bash, 'ps -e -o pid= | wc -l', false);
    expect(bare.metadata).toMatchObject({ sandbox: { kind: 'none', policy: 'outside' } });
    expect(Number(bare.text.trim())).toBeGreaterThan(Number(inside.text.trim()));
  });
});

/** Everyday git work, run once bare and once sandboxed, must leave the same state. */
const GIT_WORK = [
  'git init -q -b main .',
  'printf "a\\n" > a.txt && git add a.txt && git commit -q -m first',
  'git branch feature && git switch -q feature',
  'printf "b\\n" > b.txt && git add b.txt && git commit -q -m second',
  'git switch -q main && printf "c\\n" > c.txt && git add c.txt && git commit -q -m third',
  'git switch -q feature && git rebase -q main',
  'printf "wip\\n" >> a.txt && git stash -q && git stash list',
  'git stash pop -q && git commit -q -am wip',
  'git tag -a v1 -m one && git tag light',
  'git remote add origin https://example.invalid/repo.git && git config user.name Someone',
  'mkdir -p build && tar -czf build/src.tgz a.txt b.txt && tar -tzf build/src.tgz',
];

function gitState(repository: string): string {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8' });
  return [
    git('for-each-ref', '--format=%(refname) %(objectname)'),
    git('stash', 'list'),
    git('status', '--porcelain'),
    git('config', '--local', '--list'),
    git('ls-files', '-s'),
  ].join('\n');
}

describe.runIf(runSandboxTests)('approved everyday work in the sandbox', () => {
  it('leaves the same tree and git state as running bare', async () => {
    const outputs: Record<string, string[]> = {};
    const states: Record<string, string> = {};
    for (const sandbox of ['auto', 'off'] as const) {
      const repository = path.join(root.path, `repo-${sandbox}`);
      mkdirSync(repository);
      const bash = new Bash({ cwd: repository, env: { HOME: home, ...GIT_ENV }, sandbox });
      outputs[sandbox] = [];
      for (const command of GIT_WORK) {
        const result = await run(bash, command);
        expect(result.state, `${sandbox}: ${command}\n${result.text}`).toBe('success');
        if (sandbox === 'auto') {
          expect(result.metadata).toMatchObject({ sandbox: { kind: 'bubblewrap', blocked: [] } });
        }
        outputs[sandbox].push(result.text);
      }
      states[sandbox] = gitState(repository);
    }
    expect(outputs.auto).toEqual(outputs.off);
    expect(states.auto).toEqual(states.off);
    expect(states.auto).toContain('remote.origin.url=https://example.invalid/repo.git');
    expect(states.auto).toContain('refs/tags/v1');
  });
});

describe.runIf(runSandboxTests)('sandbox auto-allow', () => {
  const decide = async (command: string, sandbox: ConstructorParameters<typeof Bash>[0]) => {
    const bash = new Bash({ cwd: project, env: { HOME: home }, ...sandbox });
    const engine = new PermissionEngine({ mode: 'default', workingDirectories: [project] });
    await bash.checkPermissions({ command: 'true' }, engine.context);
    return (await engine.check(bash, { command })).behavior;
  };
  const on = { sandbox: { autoAllow: true } };

  it('allows what the write policy holds, without asking', async () => {
    mkdirSync(path.join(project, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(project, '.env'), 'TOKEN=x\n');
    for (const command of [
      'echo x > out.txt',
      'rm -rf build',
      "sh -c 'echo x > y.txt'",
      'mkdir -p dist && cp README.md dist/',
    ]) {
      expect(await decide(command, {}), command).toBe('ask');
      expect(await decide(command, on), command).toBe('allow');
    }
  });

  it('still asks for what needs more than the sandbox gives', async () => {
    for (const command of [
      'curl -o x.html https://example.test/',
      'git push origin main',
      'echo x >> ~/.bashrc',
      `cp README.md ${outside}/`,
      'cp README.md .git/hooks/pre-commit',
      'git remote add origin https://example.test/r.git',
      'cat .env > copy.txt',
    ]) {
      expect(await decide(command, on), command).toBe('ask');
    }
    expect(
      await decide('echo x > out.txt', {
        sandbox: { autoAllow: true, network: { allow: ['registry.example:443'] } },
      }),
    ).toBe('ask');
    expect(await decide('echo x > out.txt', { sandbox: { autoAllow: true, mode: 'off' } })).toBe(
      'ask',
    );
  });
});

describe.runIf(runSandboxTests)('caches the environment names', () => {
  it('are writable for an approved line, as the home caches are (npx sets npm_config_cache)', async () => {
    const cache = path.join(outside, 'npm-cache');
    mkdirSync(cache, { recursive: true });
    const command = 'sh -c \'mkdir -p "$npm_config_cache/_cacache" && echo made\'';
    const named = new Bash({ cwd: project, env: { HOME: home, npm_config_cache: cache } });
    expect((await run(named, command)).text).toContain('made');
    expect(existsSync(path.join(cache, '_cacache'))).toBe(true);
    const other = path.join(outside, 'not-named');
    mkdirSync(other);
    const unnamed = new Bash({ cwd: project, env: { HOME: home, CACHE_LIKE: other } });
    const refused = await run(unnamed, 'sh -c \'mkdir "$CACHE_LIKE/x" && echo made\'');
    expect(refused.text).not.toContain('made');
    expect(existsSync(path.join(other, 'x'))).toBe(false);
  });

  it('never opens /, a top-level directory, the home or a working directory', () => {
    const env = { npm_config_cache: '/', XDG_CACHE_HOME: '/usr', YARN_CACHE_FOLDER: root.path };
    expect(environmentCaches(env, [home, project])).toEqual([]);
    expect(environmentCaches({ PIP_CACHE_DIR: outside }, [home, project])).toEqual([outside]);
  });
});
