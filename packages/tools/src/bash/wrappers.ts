import type { Assignment, Word } from './syntax.js';
import { UNKNOWN_WORD, wordSuffix } from './syntax.js';
import { scanArguments } from './options.js';
import { hasKey, parseOptions } from './option-table.js';
import { optionTable } from './option-tables.js';

/**
 * How a command runs other commands:
 * - `transparent`: runs the rest of its arguments as a command (`time`, `env`, `nice`);
 * - `privileged`: the same, as another user (`sudo`) — always a safety ask;
 * - `xargs`: runs a command with arguments read from input;
 * - `find`: runs commands from `-exec`/`-ok` clauses;
 * - `shell`: runs a script given as text (`sh -c`, `eval`, `watch`), parsed in turn;
 * - `opaque`: runs code we cannot see (`bash script.sh`, `source x`, `sudo -s`).
 */
export type WrapperKind = 'transparent' | 'privileged' | 'xargs' | 'find' | 'shell' | 'opaque';

/** A command a wrapper runs: its assignments and words. */
export type InnerInvocation = { assignments: Assignment[]; words: Word[] };

/** What a wrapper runs: inner commands, or scripts to parse. */
export type Unwrapped = { kind: WrapperKind; commands: InnerInvocation[]; scripts: string[] };

/** Shells: `sh -c TEXT` runs TEXT; without `-c` they run a script we cannot see. */
export const SHELLS: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'fish',
  'csh',
  'tcsh',
  'busybox',
]);
const OPAQUE = new Set(['source', '.', 'trap', 'alias', 'fc', 'coproc', 'enable', 'shopt', 'bind']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Transparent wrappers and how many operands come before the command
 * (`timeout DURATION command`). Their options are read with their full
 * option tables, so an optional value (`xargs -l`) or an abbreviation
 * (`env --s=…`) cannot move where the command starts.
 */
const TRANSPARENT: Record<string, number> = {
  time: 0,
  nice: 0,
  nohup: 0,
  timeout: 1,
  stdbuf: 0,
  command: 0,
  builtin: 0,
  exec: 0,
  ionice: 0,
  setsid: 0,
  env: 0,
};

/** Options taking a value for the builtins without a table (`exec -a NAME`). */
const BUILTIN_VALUES: Record<string, string> = { builtin: '', exec: 'a' };

const PRIVILEGED: Record<string, string> = {
  sudo: 'ughpCDrtUT',
  doas: 'uC',
  pkexec: '',
  run0: 'uD',
};

/**
 * What a command runs besides itself, or undefined when it runs nothing
 * else. Options are read as the wrapper would read them, so the inner
 * command is found where the wrapper finds it (`timeout -s KILL 5 rm x` runs `rm x`).
 */
export function unwrap(name: string, args: readonly Word[]): Unwrapped | undefined {
  if (SHELLS.has(name)) return shell(args);
  if (OPAQUE.has(name)) return { kind: 'opaque', commands: [], scripts: [] };
  if (name === 'eval') return script(args);
  if (name === 'watch') return watch(args);
  if (name === 'xargs') return xargs(args);
  if (name === 'find') return find(args);
  if (name === 'su') return su(args);
  const privileged = PRIVILEGED[name];
  if (privileged !== undefined) return prefixed('privileged', args, privileged, []);
  if (name === 'flock') return flock(args);
  const skip = TRANSPARENT[name];
  if (skip === undefined) return runsNamedProgram(name, args);
  const table = optionTable(name);
  if (table === undefined) {
    const rest = args.slice(firstOperand(args, BUILTIN_VALUES[name] ?? '', []));
    return rest.length === 0 ? undefined : transparent(rest);
  }
  const parsed = parseOptions(args, table);
  // An option we cannot read, or `env -S`/`env -C`, leaves the command unknown.
  if (!parsed.ok || hasKey(parsed, '-S', '-C'))
    return { kind: 'opaque', commands: [], scripts: [] };
  // `command -v NAME` only looks NAME up (the options end at the first operand: `command git -v` runs git).
  if (name === 'command' && hasKey(parsed, '-v', '-V')) return undefined;
  const rest = parsed.operands.slice(skip);
  // Only env reads NAME=value words; for the others (`time LANG=C ls`) it is the program's name.
  if (name !== 'env') return rest.length === 0 ? undefined : transparent(rest);
  return withAssignments('transparent', rest);
}

/** `wrapper [options] [NAME=value…] command args…` (`sudo -u x A=1 ls`). */
function prefixed(
  kind: WrapperKind,
  args: readonly Word[],
  short: string,
  long: readonly string[],
): Unwrapped | undefined {
  return withAssignments(kind, args.slice(firstOperand(args, short, long)));
}

/** A wrapper running `words` as a command, with no assignments of its own. */
function transparent(words: Word[]): Unwrapped {
  return { kind: 'transparent', commands: [{ assignments: [], words }], scripts: [] };
}

/** `[NAME=value…] command args…`, after a wrapper's options. */
function withAssignments(kind: WrapperKind, rest: readonly Word[]): Unwrapped | undefined {
  const assignments: Assignment[] = [];
  let index = 0;
  for (; index < rest.length && ASSIGNMENT.test(rest[index]?.value ?? ''); index++) {
    const word = rest[index];
    if (word === undefined) break;
    const equals = word.value.indexOf('=');
    assignments.push({ name: word.value.slice(0, equals), value: wordSuffix(word, equals + 1) });
  }
  const words = rest.slice(index);
  if (words.length === 0) {
    return assignments.length === 0 && kind === 'privileged'
      ? { kind: 'opaque', commands: [], scripts: [] }
      : undefined;
  }
  return { kind, commands: [{ assignments, words }], scripts: [] };
}

/** Index of the first argument that is not an option or an option's value. */
function firstOperand(args: readonly Word[], short: string, long: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]?.value ?? '';
    if (text === '--') return i + 1;
    if (!text.startsWith('-') || text === '-') return i;
    if (text.startsWith('--')) {
      if (!text.includes('=') && long.includes(text.slice(2))) i++;
      continue;
    }
    const letters = text.slice(1);
    const valueAt = [...letters].findIndex((letter) => short.includes(letter));
    if (valueAt === letters.length - 1) i++;
  }
  return args.length;
}

function shell(args: readonly Word[]): Unwrapped {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]?.value ?? '';
    if (!text.startsWith('-') && !text.startsWith('+')) break;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) {
      const body = args[i + 1];
      return body === undefined || body.dynamic
        ? { kind: 'opaque', commands: [], scripts: [] }
        : { kind: 'shell', commands: [], scripts: [body.value] };
    }
  }
  return { kind: 'opaque', commands: [], scripts: [] };
}

/**
 * `flock [options] FILE command…` runs the command; `flock [options] FILE -c
 * TEXT` runs TEXT with `sh -c`; `flock [options] NUMBER` runs nothing.
 */
function flock(args: readonly Word[]): Unwrapped | undefined {
  // flock's options end at the first operand; `-c`/`--command` may come before it or right after it.
  const start = firstOperand(args, 'wEc', ['timeout', 'wait', 'conflict-exit-code', 'command']);
  const before = scanArguments(args.slice(0, start), {
    short: 'wEc',
    long: ['timeout', 'wait', 'conflict-exit-code', 'command'],
  }).options.find((option) => option.name === '-c' || option.name === '--command');
  const after = args[start + 1];
  const body =
    before?.value ??
    (after !== undefined && (after.value === '-c' || after.value === '--command')
      ? (args[start + 2] ?? UNKNOWN_SCRIPT)
      : undefined);
  if (body !== undefined) {
    return body.dynamic
      ? { kind: 'opaque', commands: [], scripts: [] }
      : { kind: 'shell', commands: [], scripts: [body.value] };
  }
  if (before !== undefined) return { kind: 'opaque', commands: [], scripts: [] };
  const rest = args.slice(start + 1);
  return rest.length === 0 ? undefined : transparent(rest);
}

const UNKNOWN_SCRIPT = UNKNOWN_WORD;

/**
 * Programs known not to run their arguments as a command: version control
 * (`git rm -rf x` removes tracked files, judged as git) and the builtins
 * whose arguments are data.
 */
const RUNS_NO_NAMED_PROGRAM = new Set(['git', 'echo', 'printf', 'test', '[', '[[', 'expr', ':']);

/**
 * Programs whose name in an unknown program's arguments is taken as a
 * command it may run (`flock`, `chronic`, `unbuffer`, `taskset`, `chrt` and
 * every other runner we have no table for): what they do is dangerous or
 * runs more code, so deny rules and safety checks must see them. Builtins
 * (`eval`, `exec`) are left out: a runner can only start a program.
 */
const NAMED_PROGRAMS = new Set([
  'rm',
  'rmdir',
  'unlink',
  'shred',
  'dd',
  'truncate',
  'chmod',
  'chown',
  'chgrp',
  'mv',
  'cp',
  'ln',
  'install',
  'tee',
  'sudo',
  'doas',
  'su',
  'pkexec',
  'kill',
  'pkill',
  'killall',
  'curl',
  'wget',
  'xargs',
  'find',
  ...SHELLS,
]);

/**
 * For a program the analysis has no table for, the first argument that names
 * one of `NAMED_PROGRAMS` (as a bare name or a path to it) and what follows:
 * a runner we do not know (`flock L rm -rf /`, `chronic rm -rf ~`) may run
 * it, so it is analysed as a command the program runs.
 */
function runsNamedProgram(name: string, args: readonly Word[]): Unwrapped | undefined {
  if (RUNS_NO_NAMED_PROGRAM.has(name) || optionTable(name) !== undefined) return undefined;
  const index = args.findIndex((arg) => {
    const base = arg.value.slice(arg.value.lastIndexOf('/') + 1);
    return !arg.dynamic && NAMED_PROGRAMS.has(base);
  });
  return index === -1 ? undefined : transparent(args.slice(index));
}

function script(args: readonly Word[]): Unwrapped {
  if (args.some((arg) => arg.dynamic)) return { kind: 'opaque', commands: [], scripts: [] };
  return { kind: 'shell', commands: [], scripts: [args.map((arg) => arg.value).join(' ')] };
}

function watch(args: readonly Word[]): Unwrapped {
  const start = firstOperand(args, 'nq', ['interval', 'differences', 'equexit']);
  const rest = args.slice(start);
  const exec = args.slice(0, start).some((arg) => /^-[a-z]*x|^--exec$/.test(arg.value));
  if (exec)
    return { kind: 'transparent', commands: [{ assignments: [], words: rest }], scripts: [] };
  return script(rest);
}

function su(args: readonly Word[]): Unwrapped {
  const scanned = scanArguments(args, { short: 'cgGs', long: ['command', 'group', 'shell'] });
  const command = scanned.options.find(
    (option) => option.name === '-c' || option.name === '--command',
  );
  const body = command?.value;
  if (body === undefined || body.dynamic) return { kind: 'opaque', commands: [], scripts: [] };
  return { kind: 'privileged', commands: [], scripts: [body.value] };
}

function xargs(args: readonly Word[]): Unwrapped | undefined {
  const table = optionTable('xargs');
  const parsed = table === undefined ? undefined : parseOptions(args, table);
  if (parsed === undefined || !parsed.ok) return { kind: 'opaque', commands: [], scripts: [] };
  const words = parsed.operands;
  // Without a command, xargs runs echo.
  return words.length === 0
    ? undefined
    : { kind: 'xargs', commands: [{ assignments: [], words }], scripts: [] };
}

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

function find(args: readonly Word[]): Unwrapped | undefined {
  const commands: InnerInvocation[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!EXEC_ACTIONS.has(args[i]?.value ?? '')) continue;
    const words: Word[] = [];
    for (i++; i < args.length; i++) {
      const word = args[i];
      if (word === undefined || word.value === ';' || word.value === '+') break;
      words.push(word);
    }
    if (words.length > 0) commands.push({ assignments: [], words });
  }
  return commands.length === 0 ? undefined : { kind: 'find', commands, scripts: [] };
}
