import { realpathSync } from 'node:fs';
import path from 'node:path';

const TMP = '/tmp';

const isInside = (directory: string, candidate: string): boolean =>
  candidate === directory ||
  candidate.startsWith(directory.endsWith('/') ? directory : `${directory}/`);

/** The real path of an existing absolute path, else undefined. */
function existingReal(place: string): string | undefined {
  if (!path.isAbsolute(place)) return undefined;
  try {
    return realpathSync.native(place);
  } catch {
    return undefined;
  }
}

/**
 * What the private `/tmp` would hide and the server needs to see: its
 * working directory (a checkout under `/tmp`, with its `node_modules`) and
 * each existing absolute path among its command and arguments, when they
 * lie below `/tmp` and not in a directory it may write (bound anyway).
 */
function visibleBelowTmp(places: readonly string[], writable: readonly string[]): string[] {
  const found = places
    .map(existingReal)
    .filter(
      (place): place is string =>
        place !== undefined &&
        isInside(TMP, place) &&
        place !== TMP &&
        !writable.some((dir) => isInside(dir, place)),
    );
  return [...new Set(found)].sort((a, b) => a.split('/').length - b.split('/').length);
}

/**
 * How a stdio server runs in a sandbox (`sandbox` in its config entry):
 * `true`, or the network it declares and the directories it may write.
 */
export type McpSandboxConfig =
  boolean | { network?: boolean | undefined; writable?: string[] | undefined };

/**
 * The command that starts a stdio server inside bubblewrap (ADR
 * tools-0007): the file system read-only but for its working directory
 * (or the `writable` directories), a private `/tmp` (its working
 * directory and the paths it is started with bound again, read-only, when
 * they lie below `/tmp`), its own PID, IPC and
 * UTS namespaces, no capabilities, killed with Parley, and no network
 * unless it declares `network: true`. Unlike the Bash tool's sandbox, no
 * secrets are masked: a server's access is what its configuration gives it.
 */
export function sandboxedCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  sandbox: Exclude<McpSandboxConfig, false>,
  bubblewrap = 'bwrap',
): { command: string; args: string[] } {
  const options = sandbox === true ? {} : sandbox;
  const writable = (options.writable ?? [cwd]).map((dir) => path.resolve(cwd, dir));
  const visible = visibleBelowTmp(
    [cwd, command, ...args],
    writable.map((dir) => existingReal(dir) ?? dir),
  );
  const bwrap = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(process.getuid?.() === 0 ? ['--cap-drop', 'ALL'] : []),
    ...(options.network === true ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    TMP,
    ...visible.flatMap((place) => ['--ro-bind', place, place]),
    ...writable.flatMap((dir) => ['--bind', dir, dir]),
    '--chdir',
    cwd,
    '--',
    command,
    ...args,
  ];
  return { command: bubblewrap, args: bwrap };
}
