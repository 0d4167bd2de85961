import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxTests } from '../../../test/bubblewrap-ready.js';
import { collect, temporaryDirectory } from '../../../test/context.js';
import { loopbackListener, type LoopbackListener } from '../../../test/sandbox-fixtures.js';
import { runCommand } from '../run-command.js';
import { bubblewrapArguments } from './bubblewrap.js';
import type { SandboxPolicy } from './policy-types.js';
import { BubblewrapAdapter } from './sandbox.js';

// The port itself, on hand-made policies: what the kernel holds whatever the
// analysis said. Each test runs a command that would do harm bare.

let root: { path: string; remove: () => void };
let project: string;
let home: string;
let outside: string;
let listener: LoopbackListener;
const adapter = new BubblewrapAdapter();

beforeAll(async () => {
  root = temporaryDirectory('parley-bwrap-');
  project = path.join(root.path, 'project');
  home = path.join(root.path, 'home');
  outside = path.join(root.path, 'outside');
  for (const dir of [
    path.join(project, '.git', 'hooks'),
    path.join(home, '.ssh'),
    path.join(home, 'work'),
    outside,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(path.join(project, '.git', 'config'), '[core]\n');
  writeFileSync(path.join(project, '.env'), 'TOKEN=marker-env\n');
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'marker-key\n');
  writeFileSync(path.join(home, '.bashrc'), '# watched\n');
  writeFileSync(path.join(outside, 'watched.txt'), 'watched\n');
  listener = await loopbackListener();
});
afterAll(async () => {
  await listener.close();
  root.remove();
});

function policy(level: SandboxPolicy['level'], extra: Partial<SandboxPolicy> = {}): SandboxPolicy {
  return {
    level,
    cwd: project,
    writable: level === 'write' ? [project] : [],
    visible: [project, home, outside],
    protect:
      level === 'read-only'
        ? []
        : [path.join(project, '.git', 'hooks'), path.join(project, '.git', 'config')],
    sealed: [],
    masks: [
      { path: path.join(project, '.env'), directory: false },
      { path: path.join(home, '.ssh'), directory: true },
    ],
    privateTmp: level !== 'bypass',
    tmpdir: undefined,
    network: false,
    ...extra,
  };
}

const run = (given: SandboxPolicy, command: string) =>
  collect(
    runCommand({
      command,
      cwd: project,
      env: { ...process.env, HOME: home },
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      headChars: 20_000,
      tailChars: 10_000,
      killGraceMs: 1_000,
      wrap: (argv) => adapter.wrap(given, argv),
    }),
  );

const watched = (): string[] =>
  [path.join(home, '.bashrc'), path.join(outside, 'watched.txt')].map((file) =>
    readFileSync(file, 'utf8'),
  );

describe.runIf(runSandboxTests)('the bubblewrap sandbox', () => {
  it('keeps the whole file system read-only for a read-only policy', async () => {
    const before = watched();
    const result = await run(
      policy('read-only'),
      `echo x >> ~/.bashrc; echo x > ${outside}/watched.txt; touch new.txt; echo rc=$?`,
    );
    expect(result.text).toContain('Read-only file system');
    expect(result.text).toContain('rc=1');
    expect(watched()).toEqual(before);
  });

  it('masks a file with /dev/null when no descriptor can be passed (MCP servers)', async () => {
    const given = policy('write');
    const { args, inherit } = bubblewrapArguments(given, 'device');
    expect(inherit).toEqual([]);
    const result = await collect(
      runCommand({
        command: 'cat .env; echo rc=$?; echo x >> .env; echo rc=$?; ls ~/.ssh | wc -l',
        cwd: project,
        env: { ...process.env, HOME: home },
        timeoutMs: 20_000,
        signal: new AbortController().signal,
        headChars: 20_000,
        tailChars: 10_000,
        killGraceMs: 1_000,
        wrap: (argv) => ({ file: 'bwrap', args: [...args, ...argv], inherit }),
      }),
    );
    expect(result.text).not.toContain('marker');
    expect(result.text.match(/Permission denied/g)).toHaveLength(2);
    expect(result.text.match(/rc=1/g)).toHaveLength(2);
    expect(result.text).toMatch(/^0$/m);
    expect(readFileSync(path.join(project, '.env'), 'utf8')).toBe('TOKEN=marker-env\n');
  });

  it('lets an approved command write the project, not outside it, not the hooks or git config', async () => {
    const before = watched();
    const result = await run(
      policy('write'),
      [
        'echo built > out.txt && echo wrote',
        'echo x >> ~/.bashrc',
        'echo evil > .git/hooks/pre-commit',
        'echo evil >> .git/config',
      ].join('; '),
    );
    expect(result.text).toContain('wrote');
    expect(readFileSync(path.join(project, 'out.txt'), 'utf8')).toBe('built\n');
    expect(result.text.match(/Read-only file system/g)).toHaveLength(3);
    expect(readFileSync(path.join(project, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(watched()).toEqual(before);
  });

  it('keeps the masks and protected paths in bypass mode', async () => {
    const result = await run(
      policy('bypass'),
      'cat .env ~/.ssh/id_ed25519; echo evil >> .git/config; echo rc=$?',
    );
    expect(result.text).not.toContain('marker');
    expect(result.text).toContain('rc=1');
    expect(readFileSync(path.join(project, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('a sealed directory takes no new entry, its entries stay writable', async () => {
    const sealed = policy('bypass', {
      sealed: [home],
      writable: [path.join(home, 'work'), path.join(home, '.bashrc')],
      protect: [path.join(home, '.bashrc')],
    });
    const result = await run(
      sealed,
      'echo x >> ~/.bash_profile; echo rc=$?; touch ~/work/made; echo rc=$?',
    );
    expect(result.text).toContain('rc=1\nrc=0');
    expect(existsSync(path.join(home, '.bash_profile'))).toBe(false);
    expect(existsSync(path.join(home, 'work', 'made'))).toBe(true);
  });

  it('masks files with nothing made on the host: no folder to leave behind when killed', async () => {
    const temporary = path.join(root.path, 'tmp');
    mkdirSync(temporary);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    try {
      const result = await run(policy('read-only'), 'cat .env; echo x > .env; echo rc=$?');
      expect(result.text).toMatch(/Read-only file system\nrc=1/);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(readdirSync(temporary)).toEqual([]);
    expect(readFileSync(path.join(project, '.env'), 'utf8')).toBe('TOKEN=marker-env\n');
  });

  it('hides secrets: masked files read empty, masked directories are empty', async () => {
    const result = await run(
      policy('read-only'),
      'cat .env; ls -A ~/.ssh; grep -r marker . ~ 2>/dev/null; echo done',
    );
    expect(result.text).toBe('done\n');
  });

  it('gives no connection to a listener on the host loopback', async () => {
    const before = listener.connections();
    const result = await run(
      policy('write'),
      `exec 3<>/dev/tcp/127.0.0.1/${listener.port} && echo connected || echo refused`,
    );
    expect(result.text).toContain('refused');
    expect(result.text).not.toContain('connected');
    expect(listener.connections()).toBe(before);
  });

  it('shares the host network when the policy says so', async () => {
    const before = listener.connections();
    const result = await run(
      policy('write', { network: true }),
      `exec 3<>/dev/tcp/127.0.0.1/${listener.port} && echo connected`,
    );
    expect(result.text).toContain('connected');
    expect(listener.connections()).toBe(before + 1);
  });

  it('runs in its own PID namespace: ps sees only its own processes', async () => {
    const result = await run(policy('read-only'), 'ps -e -o pid= -o comm=');
    const lines = result.text.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(lines.map((line) => Number(line.trim().split(/\s+/)[0]))).not.toContain(process.pid);
    expect(result.text).toMatch(/^\s*1 /m);
  });

  it('gives a private, writable /tmp and no capabilities or new privileges', async () => {
    const result = await run(
      policy('read-only'),
      'echo t > /tmp/scratch && cat /tmp/scratch; grep -E "^(CapEff|NoNewPrivs)" /proc/self/status',
    );
    expect(result.text).toContain('t\n');
    expect(result.text).toMatch(/CapEff:\s+0+\n/);
    expect(result.text).toMatch(/NoNewPrivs:\s+1/);
  });
});
