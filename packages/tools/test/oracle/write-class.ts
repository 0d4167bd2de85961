import path from 'node:path';
import { stringArgument, type SyscallEvent, type Trace } from './strace-trace.js';

/**
 * Which traced system calls show that a command did more than read: writes
 * to the file system, network use, and programs run that are not on the
 * proven list. The oracle fails a command the analysis allowed when any of
 * these appear; see docs/decisions/tools-0005-bash-execution-oracle.md for
 * why each call counts and why each exemption is safe.
 */

/** Why a call counts against a command. */
export type ViolationKind = 'write' | 'network' | 'exec' | 'unreadable';

/** One call (or unreadable trace line) that a read-only command must not make. */
export type Violation = { kind: ViolationKind; detail: string };

/** The system calls strace is asked to trace (`-e trace=…`); `?` marks names an older kernel or strace may not know. */
export const TRACED_SYSCALLS = [
  'open',
  'openat',
  '?openat2',
  'creat',
  'unlink',
  'unlinkat',
  'rename',
  'renameat',
  '?renameat2',
  'mkdir',
  'mkdirat',
  'rmdir',
  'chmod',
  'fchmod',
  'fchmodat',
  '?fchmodat2',
  'chown',
  'fchown',
  'lchown',
  'fchownat',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'truncate',
  'ftruncate',
  '?fallocate',
  'utime',
  'utimes',
  'utimensat',
  'futimesat',
  'mknod',
  'mknodat',
  'setxattr',
  'lsetxattr',
  'fsetxattr',
  'removexattr',
  'lremovexattr',
  'fremovexattr',
  'execve',
  'execveat',
  'connect',
  'bind',
  'sendto',
  'sendmsg',
] as const;

/** Calls that change the file system whatever their arguments. */
const ALWAYS_WRITES = new Set([
  'creat',
  'unlink',
  'unlinkat',
  'rename',
  'renameat',
  'renameat2',
  'mkdir',
  'mkdirat',
  'rmdir',
  'chmod',
  'fchmod',
  'fchmodat',
  'fchmodat2',
  'chown',
  'fchown',
  'lchown',
  'fchownat',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'truncate',
  'ftruncate',
  'fallocate',
  'utime',
  'utimes',
  'utimensat',
  'futimesat',
  'mknod',
  'mknodat',
  'setxattr',
  'lsetxattr',
  'fsetxattr',
  'removexattr',
  'lremovexattr',
  'fremovexattr',
]);

/** Open flags that make an open a write (O_APPEND only comes with O_WRONLY or O_RDWR, but is counted anyway). */
const WRITE_FLAGS = /\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_TMPFILE)\b/;

/**
 * Paths a write may open: they store nothing. `/dev/null` discards,
 * `/dev/tty` is the terminal (bash opens it read-write at start to find its
 * controlling terminal; there is none in the sandbox), and the standard
 * streams are the pipe the output goes to anyway.
 */
const HARMLESS_WRITE_PATHS = new Set([
  '/dev/null',
  '/dev/full',
  '/dev/tty',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/fd/1',
  '/dev/fd/2',
  '/proc/self/fd/1',
  '/proc/self/fd/2',
]);

/**
 * What an opened fd may turn out to be for a write to be harmless:
 * `/dev/null`, `/dev/full` (gnulib programs open it on a closed standard
 * fd so that writes there fail), a pipe, the terminal.
 */
const HARMLESS_OPENED =
  /^(\/dev\/null<char 1:3>|\/dev\/full<char 1:7>|pipe:\[\d+\]|\/dev\/pts\/\d+<char 136:\d+>)$/;

/**
 * The name-service cache's socket. glibc tries it before reading
 * /etc/passwd (bash, `id`, `whoami`, `ls -l` all do); it can answer host
 * lookups too, which leave the machine, so only a failed connect (no nscd
 * running) is exempt.
 */
const NSCD_SOCKETS = new Set(['/var/run/nscd/socket', '/run/nscd/socket']);

/** Where proven programs live; a program run from anywhere else (`./ls`) is not the proven one. */
const PROGRAM_DIRECTORIES = new Set([
  '/usr/bin',
  '/bin',
  '/usr/sbin',
  '/sbin',
  '/usr/local/bin',
  '/usr/lib/git-core',
]);

/**
 * The calls in `trace` that a read-only command must not make. `programs`
 * is the proven command list: the bare names of programs that may be run
 * (the shell included).
 */
export function violationsOf(
  trace: Trace,
  programs: ReadonlySet<string>,
  temporaryDirectory?: string,
): Violation[] {
  const found: Violation[] = trace.unreadable.map((line) => ({ kind: 'unreadable', detail: line }));
  const running = new Map<number, string>();
  const scratch =
    temporaryDirectory === undefined ? new Set<string>() : scratchFiles(trace, temporaryDirectory);
  for (const event of trace.events) {
    if (event.name === 'execve' && event.result === '0') {
      running.set(event.pid, path.posix.basename(stringArgument(event.args[0]) ?? ''));
    }
    if (running.get(event.pid) === 'git' && isIndexRefresh(event)) continue;
    if (isScratchCall(event, scratch)) continue;
    const kind = judge(event, programs);
    if (kind !== undefined) found.push({ kind, detail: event.line });
  }
  return found;
}

/**
 * Private scratch files: created with O_EXCL (so nothing that existed is
 * touched) directly in the command's TMPDIR, and removed again within the
 * same run — what `tac` and `sort` do with input they cannot seek. Calls on
 * such a file's fd (`tac - -` truncates it to reuse it) are exempt too.
 * They leave nothing behind and no other process could have been handed them.
 */
function scratchFiles(trace: Trace, temporaryDirectory: string): Set<string> {
  const created = new Set<string>();
  const removed = new Set<string>();
  for (const event of trace.events) {
    const file = scratchPath(event);
    if (file === undefined || path.posix.dirname(file) !== temporaryDirectory) continue;
    if (event.name === 'unlink' || event.name === 'unlinkat') {
      if (event.result === '0') removed.add(file);
    } else if (/O_CREAT/.test(event.args[2] ?? '') && /O_EXCL/.test(event.args[2] ?? '')) {
      created.add(file);
    }
  }
  return new Set([...created].filter((file) => removed.has(file)));
}

function scratchPath(event: SyscallEvent): string | undefined {
  switch (event.name) {
    case 'openat':
    case 'unlinkat':
      return stringArgument(event.args[1]);
    case 'unlink':
      return stringArgument(event.args[0]);
    default:
      return undefined;
  }
}

function isScratchCall(event: SyscallEvent, scratch: ReadonlySet<string>): boolean {
  const file = scratchPath(event) ?? openedPath(event.args[0]);
  return file !== undefined && scratch.has(file);
}

/** The file an fd argument refers to (`3</tmp/x>`, `3</tmp/x>(deleted)`), for calls on an fd such as `ftruncate`. */
function openedPath(arg: string | undefined): string | undefined {
  return arg === undefined ? undefined : /^\d+<([^<>]*)>(?:\(deleted\))?$/.exec(arg)?.[1];
}

/**
 * git's index refresh: `git status` (and `diff`, `describe`…) rewrites
 * `.git/index` with fresh stat data through `.git/index.lock`, taking the
 * lock only if it is free (git calls it an optional lock; GIT_OPTIONAL_LOCKS=0
 * turns it off). The index's content, what is staged, stays the same, so
 * this is treated as reading — by git itself and here. Only these three
 * calls on exactly those two files are exempt, and only from a git process.
 */
function isIndexRefresh(event: SyscallEvent): boolean {
  const lock = (arg: string | undefined): boolean =>
    stringArgument(arg)?.endsWith('/.git/index.lock') === true;
  switch (event.name) {
    case 'openat':
      return lock(event.args[1]) && /O_CREAT\|O_EXCL/.test(event.args[2] ?? '');
    case 'rename':
      return lock(event.args[0]) && stringArgument(event.args[1])?.endsWith('/.git/index') === true;
    case 'unlink':
      return lock(event.args[0]);
    default:
      return false;
  }
}

/**
 * Whether the call writes (any path, even a harmless one): the calls that
 * always write, and opens with a write flag.
 */
export function isWriteCall(event: SyscallEvent): boolean {
  if (ALWAYS_WRITES.has(event.name)) return true;
  const flags = event.name === 'open' ? event.args[1] : event.args[2];
  return /^open(at2?)?$/.test(event.name) && flags !== undefined && WRITE_FLAGS.test(flags);
}

function judge(event: SyscallEvent, programs: ReadonlySet<string>): ViolationKind | undefined {
  const { name, args } = event;
  if (ALWAYS_WRITES.has(name)) return 'write';
  switch (name) {
    case 'open':
      return openWrites(event, args[0], args[1]) ? 'write' : undefined;
    case 'openat':
    case 'openat2':
      return openWrites(event, args[1], args[2]) ? 'write' : undefined;
    case 'execve':
      return programAllowed(stringArgument(args[0]), programs) ? undefined : 'exec';
    case 'execveat':
      return 'exec';
    case 'connect':
      return connectAllowed(event) ? undefined : 'network';
    case 'bind':
    case 'sendto':
    case 'sendmsg':
      return /sa_family=AF_(INET|INET6|PACKET)\b/.test(args.join(', ')) ? 'network' : undefined;
    default:
      // A call we traced but do not know how to judge: fail closed.
      return 'unreadable';
  }
}

function openWrites(
  event: SyscallEvent,
  pathArg: string | undefined,
  flags: string | undefined,
): boolean {
  if (flags === undefined || !WRITE_FLAGS.test(flags)) return false;
  const opened = event.resultPath;
  if (opened !== undefined) return !HARMLESS_OPENED.test(opened);
  // It failed (or the result was lost): judge the path it asked for.
  const asked = stringArgument(pathArg);
  return asked === undefined || !HARMLESS_WRITE_PATHS.has(asked);
}

function programAllowed(file: string | undefined, programs: ReadonlySet<string>): boolean {
  if (file === undefined || !path.posix.isAbsolute(file)) return false;
  return (
    PROGRAM_DIRECTORIES.has(path.posix.dirname(file)) && programs.has(path.posix.basename(file))
  );
}

function connectAllowed(event: SyscallEvent): boolean {
  const address = event.args[1] ?? '';
  const unix = /^\{sa_family=AF_UNIX, sun_path="([^"]*)"\}$/.exec(address);
  return (
    unix !== null &&
    NSCD_SOCKETS.has(unix[1] ?? '') &&
    event.result === '-1' &&
    (event.errno === 'ENOENT' || event.errno === 'ECONNREFUSED')
  );
}
