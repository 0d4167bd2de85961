import path from 'node:path';

/**
 * How a stdio server runs in a sandbox (`sandbox` in its config entry):
 * `true`, or the network it declares and the directories it may write.
 */
export type McpSandboxConfig =
  boolean | { network?: boolean | undefined; writable?: string[] | undefined };

/**
 * The command that starts a stdio server inside bubblewrap (ADR
 * tools-0007): the file system read-only but for its working directory
 * (or the `writable` directories), a private `/tmp`, its own PID, IPC and
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
    '/tmp',
    ...writable.flatMap((dir) => ['--bind', dir, dir]),
    '--chdir',
    cwd,
    '--',
    command,
    ...args,
  ];
  return { command: bubblewrap, args: bwrap };
}
