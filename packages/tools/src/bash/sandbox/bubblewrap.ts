import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxPolicy } from './policy-types.js';

/**
 * What every sandboxed command gets: own PID, IPC and UTS namespaces,
 * killed with its parent. No `--new-session`: the command stays in the
 * process group the Bash tool stops on a timeout (it has no terminal to
 * inject keys into, as the tool runs it detached with stdin closed).
 */
const BASE = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];

/**
 * As root, bubblewrap leaves the command every capability unless told not
 * to; with them it could remount the read-only binds writable.
 */
function capabilityArguments(): string[] {
  return process.getuid?.() === 0 ? ['--cap-drop', 'ALL'] : [];
}

let emptyFile: string | undefined;

/**
 * An empty file bound read-only over secret files: they read as empty and a
 * write fails with EROFS (a device such as /dev/null would take the write
 * silently). Made once per process in a private directory, removed on exit.
 */
function emptyFilePath(): string {
  if (emptyFile !== undefined) return emptyFile;
  const directory = mkdtempSync(path.join(os.tmpdir(), 'parley-sandbox-'));
  // Readable by all: the file is empty, and a sandbox run as another user binds it too.
  chmodSync(directory, 0o755);
  const file = path.join(directory, 'empty');
  writeFileSync(file, '', { mode: 0o444 });
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  emptyFile = file;
  return file;
}

/** Parents before children, so a bind inside another is not hidden by it. */
const byDepth = (a: { path: string }, b: { path: string }): number =>
  a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path);

/**
 * The bubblewrap arguments that enforce a policy, up to (not including) the
 * program to run: the root read-only (writable in bypass), fresh `/dev` and
 * `/proc` (its own processes only), a private `/tmp` with the paths below it
 * that must be seen bound again, the sealed directories read-only and the
 * writable paths (a sealed directory's entries among them), then the protected
 * paths read-only and the secrets masked, last so nothing uncovers them.
 */
export function bubblewrapArguments(policy: SandboxPolicy): string[] {
  const args = [...BASE, ...capabilityArguments()];
  if (!policy.network) args.push('--unshare-net');
  args.push(policy.level === 'bypass' ? '--bind' : '--ro-bind', '/', '/');
  args.push('--dev', '/dev', '--proc', '/proc');
  if (policy.privateTmp) args.push('--tmpfs', '/tmp');
  const binds = [
    ...(policy.privateTmp ? policy.visible.map((item) => ({ path: item, flag: '--ro-bind' })) : []),
    ...policy.sealed.map((item) => ({ path: item, flag: '--ro-bind' })),
    ...policy.writable.map((item) => ({ path: item, flag: '--bind' })),
  ].sort(byDepth);
  for (const bind of binds) args.push(bind.flag, bind.path, bind.path);
  if (policy.tmpdir !== undefined) args.push('--tmpfs', policy.tmpdir);
  for (const item of [...policy.protect].sort()) args.push('--ro-bind', item, item);
  for (const mask of [...policy.masks].sort(byDepth)) {
    if (mask.directory) args.push('--tmpfs', mask.path, '--remount-ro', mask.path);
    else args.push('--ro-bind', emptyFilePath(), mask.path);
  }
  args.push('--chdir', policy.cwd, '--');
  return args;
}

const probes = new Map<string, string | undefined>();

/**
 * Whether `program` (bubblewrap) can make a sandbox here: runs `true` in
 * the strictest one once per program and process (a few milliseconds).
 * Undefined when it can; otherwise why not, in words (not installed, no
 * user namespaces, not Linux).
 */
export function bubblewrapProblem(program: string): string | undefined {
  if (probes.has(program)) return probes.get(program);
  let problem: string | undefined;
  if (process.platform !== 'linux') {
    problem = `bubblewrap needs Linux (this is ${process.platform})`;
  } else {
    const result = spawnSync(
      program,
      [
        ...BASE,
        ...capabilityArguments(),
        '--unshare-net',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--tmpfs',
        '/tmp',
        '--',
        'true',
      ],
      { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    if (result.error !== undefined) {
      problem = `${program} cannot be run (${result.error.message})`;
    } else if (result.status !== 0) {
      problem = `${program} cannot make a sandbox here: ${result.stderr.trim() || `exit code ${String(result.status)}`}`;
    }
  }
  probes.set(program, problem);
  return problem;
}
