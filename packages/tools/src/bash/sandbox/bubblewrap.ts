import { spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
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

let devNull: number | undefined;

/**
 * A descriptor open on `/dev/null`, once per process (never closed: one
 * descriptor). Each masked file gets its own copy as the sandbox's fd 3,
 * 4, … (`--ro-bind-data`): bubblewrap reads it to the end (nothing) into a
 * file of its own tmpfs and binds that read-only over the secret, so it
 * reads as empty and a write fails with EROFS (a device such as /dev/null
 * bound there would take the write silently). Nothing is made on the host,
 * so nothing is left behind when the process is killed.
 */
function devNullDescriptor(): number {
  devNull ??= openSync('/dev/null', 'r');
  return devNull;
}

/** The first descriptor after stdin, stdout and stderr. */
const FIRST_INHERITED = 3;

/**
 * How a masked file is hidden: `descriptor` (the default) binds an empty
 * read-only copy read from a descriptor bubblewrap gets as its fd 3, 4, …
 * (`inherit`), so it reads as empty and writes fail with EROFS; `device`
 * binds `/dev/null` over it, for a caller that cannot pass descriptors
 * beyond stdin, stdout and stderr (the MCP SDK's stdio transport): the
 * bind is `nodev`, as bubblewrap makes every bind but `--dev-bind`, so
 * opening it fails with EACCES. Either way the secret is neither read nor
 * changed.
 */
export type FileMasking = 'descriptor' | 'device';

/** Parents before children, so a bind inside another is not hidden by it. */
const byDepth = (a: { path: string }, b: { path: string }): number =>
  a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path);

/**
 * The bubblewrap arguments that enforce a policy, up to (not including) the
 * program to run, and the descriptors bubblewrap must get as its fd 3, 4, …
 * (`inherit`, one per masked file, none with `fileMasking` `device`): the root read-only (writable in bypass), fresh `/dev` and
 * `/proc` (its own processes only), a private `/tmp` with the paths below it
 * that must be seen bound again, the sealed directories read-only and the
 * writable paths (a sealed directory's entries among them), then the protected
 * paths read-only and the secrets masked, last so nothing uncovers them.
 */
export function bubblewrapArguments(
  policy: SandboxPolicy,
  fileMasking: FileMasking = 'descriptor',
): {
  args: string[];
  inherit: number[];
} {
  const args = [...BASE, ...capabilityArguments()];
  const inherit: number[] = [];
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
    else if (fileMasking === 'device') args.push('--ro-bind', '/dev/null', mask.path);
    else {
      args.push('--perms', '0444', '--ro-bind-data', String(FIRST_INHERITED + inherit.length));
      args.push(mask.path);
      inherit.push(devNullDescriptor());
    }
  }
  args.push('--chdir', policy.cwd, '--');
  return { args, inherit };
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
