import { spawn, spawnSync } from 'node:child_process';
import type { SpawnSyncOptions } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { TRACED_SYSCALLS } from './write-class.js';
import type { WorkerSandbox } from './sandbox.js';

/**
 * Runs one command for real, the way the Bash tool does (`bash -c`, stdin
 * closed, output to a pipe), under `strace -f` and without a network:
 * in a new network namespace (`unshare -n`, nothing but a loopback that is
 * down), as an unprivileged user when the harness is root, with a minimal
 * environment whose HOME and TMPDIR are in the sandbox, and stopped by
 * `timeout` (which kills its whole process group, so the trace stays whole).
 */

/** How commands are kept away from the machine and the network. */
export type Isolation = {
  /** Put before `strace`: `unshare -n` as root, `unshare -rn` otherwise. */
  prefix: string[];
  /** `strace -u USER`: whom the command runs as (root only). */
  user: string | undefined;
  /** The uid the sandboxes are given, when the harness can chown. */
  owner: number | undefined;
};

/** The result of probing: isolation, or why the oracle cannot run here. */
export type IsolationProbe = { isolation: Isolation } | { missing: string };

/** What one traced run left. */
export type TracedRun = {
  trace: string;
  exitCode: number | null;
  /** The command outlived its time and was killed (by `timeout`, or by the harness). */
  timedOut: boolean;
  /** The first few KB of what strace and the command wrote to stderr. */
  stderr: string;
};

const quiet: SpawnSyncOptions = { stdio: 'ignore', timeout: 10_000 };

/**
 * Checks for strace, a network namespace, and that ptrace works in it. As
 * root: `unshare -n` with commands run as `nobody`; where that is refused
 * (a container without the capability), or not root: a user namespace
 * (`unshare -rn`) with commands run as the caller.
 */
export function probeIsolation(uid: number | undefined = process.getuid?.()): IsolationProbe {
  if (spawnSync('strace', ['-V'], quiet).status !== 0) {
    return { missing: 'strace is not installed (Debian: apt-get install strace)' };
  }
  const candidates: Isolation[] = [];
  if (uid === 0) {
    const nobody = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' });
    if (nobody.status === 0) {
      const owner = Number(nobody.stdout.trim());
      candidates.push({ prefix: ['unshare', '-n'], user: 'nobody', owner });
    }
  }
  candidates.push({ prefix: ['unshare', '-rn'], user: undefined, owner: undefined });
  for (const isolation of candidates) {
    if (traces(isolation)) return { isolation };
  }
  return {
    missing:
      'no network namespace in which strace can trace (`unshare -n` / `unshare -rn` refused, or ptrace not permitted)',
  };
}

function traces(isolation: Isolation): boolean {
  const [command = '', ...rest] = isolation.prefix;
  const user = isolation.user === undefined ? [] : ['-u', isolation.user];
  const probe = spawnSync(
    command,
    [...rest, 'strace', '-f', '-qq', ...user, '-o', '/dev/null', 'true'],
    quiet,
  );
  return probe.status === 0;
}

/**
 * Runs `command` in `sandbox` under strace. `timeoutMs` bounds the command;
 * the harness gives up 5 s after that. `wrap` puts a program before
 * `bash -c command` (the Bash tool's sandbox), with the descriptors it
 * must get as fd 3, 4, … (strace, timeout and unshare pass them on).
 */
export function tracedRun(
  command: string,
  sandbox: WorkerSandbox,
  isolation: Isolation,
  timeoutMs: number,
  wrap: (argv: string[]) => { argv: string[]; inherit: number[] } = (argv) => ({
    argv,
    inherit: [],
  }),
): Promise<TracedRun> {
  rmSync(sandbox.traceFile, { force: true });
  const wrapped = wrap(['bash', '-c', command]);
  const args = [
    ...isolation.prefix.slice(1),
    'strace',
    '-f',
    '-qq',
    '-yy',
    '-s',
    '4096',
    '--seccomp-bpf',
    '-e',
    'signal=none',
    '-e',
    `trace=${TRACED_SYSCALLS.join(',')}`,
    ...(isolation.user === undefined ? [] : ['-u', isolation.user]),
    '-o',
    sandbox.traceFile,
    '--',
    'timeout',
    '-s',
    'KILL',
    `${timeoutMs / 1000}`,
    ...wrapped.argv,
  ];
  const child = spawn(isolation.prefix[0] ?? '', args, {
    cwd: sandbox.project,
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: sandbox.home,
      TMPDIR: sandbox.tmp,
      LANG: 'C.UTF-8',
      USER: isolation.user ?? process.env.USER ?? 'user',
      LOGNAME: isolation.user ?? process.env.USER ?? 'user',
      SHELL: '/bin/bash',
      TERM: 'dumb',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', ...wrapped.inherit],
  });
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (data: Buffer) => {
    if (stderr.length < 4096) stderr += data.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    let killed = false;
    const guard = setTimeout(() => {
      killed = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs + 5_000);
    child.on('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(guard);
      let trace = '';
      try {
        trace = readFileSync(sandbox.traceFile, 'utf8');
      } catch {
        // No trace at all: the caller finds no bash in it and fails the run.
      }
      resolve({ trace, exitCode: code, timedOut: killed || code === 137, stderr });
    });
  });
}

/**
 * How a test file of the oracle runs: `runs` says whether (in CI always,
 * so a missing strace fails there at once; elsewhere only when isolation
 * can be had, else it prints why `name` is skipped), and `ready` gives the
 * isolation or throws with what is missing.
 */
export function oracleIsolation(name: string): { runs: boolean; ready: () => Isolation } {
  const inCi = process.env.CI === 'true' || process.env.CI === '1';
  const probe = probeIsolation();
  const isolation = 'isolation' in probe ? probe.isolation : undefined;
  const missing = 'missing' in probe ? probe.missing : '';
  if (isolation === undefined && !inCi) console.log(`${name} skipped: ${missing}`);
  return {
    runs: isolation !== undefined || inCi,
    ready: () => {
      if (isolation === undefined) throw new Error(`the oracle cannot run: ${missing}`);
      return isolation;
    },
  };
}
