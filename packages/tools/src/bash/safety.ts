import type { Assignment, Word } from './syntax.js';
import { awkCode, awkRunsCommands } from './awk.js';
import { isDangerousVariable } from './env-vars.js';
import { hasOption, scanArguments } from './options.js';
import { sedScriptEffect } from './sed.js';
import { inPlaceEdit } from './in-place.js';
import { hasKey, keyValues, parseOptions } from './option-table.js';
import { optionTable } from './option-tables.js';

/** Programs that are dangerous however they are called (SPEC section 7). */
const DANGEROUS_PROGRAMS: Record<string, string> = {
  sudo: 'runs a command as another user',
  doas: 'runs a command as another user',
  su: 'runs a command as another user',
  pkexec: 'runs a command as another user',
  run0: 'runs a command as another user',
  dd: 'dd writes raw data to files and devices',
  mkswap: 'formats a device',
  fdisk: 'changes disk partitions',
  sfdisk: 'changes disk partitions',
  parted: 'changes disk partitions',
  wipefs: 'erases file-system signatures',
  shred: 'destroys file contents',
  shutdown: 'shuts the machine down',
  reboot: 'reboots the machine',
  halt: 'halts the machine',
  poweroff: 'powers the machine off',
};

/** Programs that run code given to them that cannot be analysed here. */
const CODE_RUNNERS = new Set([
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
  'eval',
  'source',
  '.',
  'watch',
  'trap',
  'alias',
  'fc',
  'coproc',
  'enable',
  'shopt',
  'bind',
]);

/** Builtins that evaluate their arguments arithmetically, where `a[$(cmd)]` runs `cmd`. */
const ARITHMETIC_EVALUATORS = new Set([
  'let',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'printf',
  'read',
  'unset',
  'test',
  '[',
  '[[',
  'mapfile',
  'readarray',
  'wait',
]);

/** Builtins whose arguments name variables to set. */
const VARIABLE_SETTERS = new Set([
  'read',
  'mapfile',
  'readarray',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'getopts',
]);

/**
 * Why a command is dangerous whatever the context, as readable reasons (none
 * when it is not): superuser and disk tools, `rm -rf`, `chmod 777`, `chown
 * -R`, `kill -9`, code runners (`sh -c`, `eval`, `source`), `sed` that can
 * write or execute, `awk` that can run commands, git options that run
 * commands, look-alike characters in the program name, and assignments to
 * variables that make programs run other code (`PAGER=…`, `LD_PRELOAD=…`).
 */
export function commandSafety(
  program: string,
  args: readonly Word[],
  assignments: readonly Assignment[],
): string[] {
  const reasons: string[] = [];
  const add = (reason: string): void => void reasons.push(reason);
  if (/[^\x20-\x7e]/.test(program))
    add(`the program name "${program}" has non-ASCII characters that can look like others`);
  const dangerous = DANGEROUS_PROGRAMS[program];
  if (dangerous !== undefined) add(`${program}: ${dangerous}`);
  if (/^mkfs(\..*)?$|^mke2fs$/.test(program)) add(`${program} formats a file system`);
  if (CODE_RUNNERS.has(program)) add(`${program} runs code that cannot be analysed`);
  if (program === 'hash' && args.length > 0) add('hash -p changes which program a name runs');
  if (program === 'init' && args.some((arg) => arg.value === '0' || arg.value === '6'))
    add('init changes the run level');
  for (const assignment of assignments) {
    if (isDangerousVariable(assignment.name))
      add(`setting ${assignment.name} can make programs run other code`);
  }
  const values = args.map((arg) => arg.value);
  if (VARIABLE_SETTERS.has(program) || program === 'printf') {
    for (const name of variableNames(program, values)) {
      if (isDangerousVariable(name))
        add(`${program} sets ${name}, which can make programs run other code`);
    }
  }
  if (
    ['declare', 'typeset', 'local'].includes(program) &&
    values.some((value) => /^-[a-zA-Z]*n/.test(value))
  ) {
    add(`${program} -n makes a name refer to another variable`);
  }
  if (
    ARITHMETIC_EVALUATORS.has(program) &&
    args.some((arg) => /\$\(|\$\{|`/.test(arg.value) || arg.dynamic)
  ) {
    add(`${program} evaluates its arguments, which can run commands`);
  }
  reasons.push(...programSafety(program, args, values));
  return reasons;
}

function programSafety(
  program: string,
  args: readonly Word[],
  values: readonly string[],
): string[] {
  switch (program) {
    case 'rm': {
      // rm -rf is judged by its targets (target-paths.ts), when they can be read.
      const scanned = scanArguments(args);
      const forced =
        hasOption(scanned, '-r', '-R', '--recursive') && hasOption(scanned, '-f', '--force');
      const table = optionTable('rm');
      const readable = table !== undefined && parseOptions(args, table).ok;
      return forced && !readable ? ['rm -rf options cannot be analysed'] : [];
    }
    case 'chmod':
      return values.some(isUnsafeMode)
        ? ['chmod makes files writable by everyone or setuid (chmod 777)']
        : [];
    case 'chown':
    case 'chgrp':
      return hasOption(scanArguments(args), '-R', '--recursive')
        ? [`${program} -R changes ownership recursively`]
        : [];
    case 'kill':
    case 'pkill':
    case 'killall':
      return values.some(
        (value, i) =>
          /^-(9|KILL|SIGKILL)$/i.test(value) ||
          (/^(-s|--signal)$/.test(value) && /^(9|KILL|SIGKILL)$/i.test(values[i + 1] ?? '')),
      )
        ? [`${program} -9 kills without letting the process clean up`]
        : [];
    case 'sed':
      return sedSafety(args);
    case 'perl': {
      const edit = inPlaceEdit(program, args);
      return edit !== undefined && 'unsafe' in edit ? [edit.unsafe] : [];
    }
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return awkSafety(program, args);
    case 'git':
      return gitSafety(values);
    case 'npm':
    case 'pnpm':
    case 'yarn':
      return values.some(
        (value) => value.startsWith('--script-shell') || value.startsWith('--node-options'),
      )
        ? [`${program} --script-shell/--node-options changes what runs`]
        : [];
    default:
      return [];
  }
}

function sedSafety(args: readonly Word[]): string[] {
  const table = optionTable('sed');
  const parsed = table === undefined ? undefined : parseOptions(args, table);
  if (parsed === undefined || !parsed.ok) return ['sed options cannot be analysed'];
  if (hasKey(parsed, '-i')) {
    const edit = inPlaceEdit('sed', args);
    return edit !== undefined && 'unsafe' in edit ? [edit.unsafe] : [];
  }
  if (hasKey(parsed, '-f')) return ['sed -f runs a script file that cannot be analysed'];
  if (hasKey(parsed, '--sandbox')) return [];
  const expressions = keyValues(parsed, '-e');
  const scripts = expressions.length > 0 ? expressions : parsed.operands.slice(0, 1);
  for (const script of scripts) {
    const effect = script.dynamic ? 'unknown' : sedScriptEffect(script.value);
    if (effect === 'writes') return ['sed script writes files (w)'];
    if (effect === 'executes') return ['sed script runs commands (e)'];
    if (effect === 'unknown') return ['sed script cannot be analysed'];
  }
  return [];
}

/** awk options that run code from elsewhere: program files, includes, shared libraries, `-W exec`. */
const AWK_CODE_OPTIONS = ['-f', '-E', '-i', '-l', '-W'];

function awkSafety(program: string, args: readonly Word[]): string[] {
  const table = optionTable(program);
  const parsed = table === undefined ? undefined : parseOptions(args, table);
  if (parsed === undefined || !parsed.ok) return ['awk options cannot be analysed'];
  if (hasKey(parsed, ...AWK_CODE_OPTIONS))
    return ['awk runs a program file or library that cannot be analysed'];
  const sources = keyValues(parsed, '-e');
  const programs = sources.length > 0 ? sources : parsed.operands.slice(0, 1);
  return programs.some((text) => {
    const code = text.dynamic ? undefined : awkCode(text.value);
    return code === undefined || awkRunsCommands(code);
  })
    ? ['awk program can run commands']
    : [];
}

/** git options and subcommands that run a command of the caller's choosing. */
function gitSafety(values: readonly string[]): string[] {
  const reasons: string[] = [];
  let index = 0;
  for (; index < values.length && (values[index] ?? '').startsWith('-'); index++) {
    const value = values[index] ?? '';
    if (value === '-c' || value.startsWith('--config-env'))
      reasons.push('git -c can set options that run commands');
    if (value.startsWith('--exec-path='))
      reasons.push('git --exec-path changes which programs git runs');
    if (
      value === '-C' ||
      value === '-c' ||
      value === '--git-dir' ||
      value === '--work-tree' ||
      value === '--namespace'
    )
      index++;
  }
  const subcommand = values[index] ?? '';
  const rest = values.slice(index + 1);
  if (
    rest.some(
      (value) =>
        isGitLongPrefix(value, 'upload-pack', 'receive-pack', 'exec') || /^(ext|fd)::/.test(value),
    )
  ) {
    reasons.push('git option runs a command (--upload-pack, --exec, ext::)');
  }
  if (
    ['clone', 'fetch', 'pull', 'ls-remote', 'archive'].includes(subcommand) &&
    rest.some((value) => value === '-u')
  ) {
    reasons.push('git -u runs a command on the remote side');
  }
  if (
    subcommand === 'grep' &&
    rest.some((value) => /^-[^-]*O/.test(value) || isGitLongPrefix(value, 'open-files-in-pager'))
  )
    reasons.push('git grep -O runs a pager');
  if (
    subcommand === 'rebase' &&
    rest.some((value) => /^-x/.test(value) || isGitLongPrefix(value, 'exec'))
  )
    reasons.push('git rebase --exec runs commands');
  if (subcommand === 'bisect' && rest[0] === 'run') reasons.push('git bisect run runs commands');
  if (subcommand === 'submodule' && rest.includes('foreach'))
    reasons.push('git submodule foreach runs commands');
  if (subcommand === 'filter-branch') reasons.push('git filter-branch runs commands');
  if (
    (subcommand === 'difftool' || subcommand === 'mergetool') &&
    rest.some((value) => /^(-x|--extcmd|--tool)/.test(value))
  ) {
    reasons.push(`git ${subcommand} runs an external tool`);
  }
  if (subcommand === 'config' && isGitConfigWrite(rest))
    reasons.push('git config changes configuration that can run commands');
  return reasons;
}

/**
 * Whether a word is one of these long options or a prefix of one that git's
 * option parser would expand to it (`--upload=…`, `--open`): at least two
 * letters, matched against the names only.
 */
function isGitLongPrefix(value: string, ...names: string[]): boolean {
  const match = /^--([^=]{2,})/.exec(value);
  const written = match?.[1];
  return written !== undefined && names.some((name) => name.startsWith(written));
}

function isGitConfigWrite(rest: readonly string[]): boolean {
  const reads = [
    '--get',
    '--get-all',
    '--get-regexp',
    '--get-urlmatch',
    '--list',
    '-l',
    'get',
    'list',
  ];
  if (rest.some((value) => reads.includes(value))) return false;
  const operands = rest.filter((value) => !value.startsWith('-'));
  return (
    operands.length >= 2 ||
    rest.some((value) =>
      /^(--(add|unset|unset-all|replace-all|rename-section|remove-section|edit)|-e|set|unset)$/.test(
        value,
      ),
    )
  );
}

/** A mode that gives everyone write access, or sets setuid/setgid (`777`, `o+w`, `u+s`). */
function isUnsafeMode(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) {
    const digits = mode.padStart(4, '0');
    return (Number(digits[3]) & 2) !== 0 || (Number(digits[0]) & 6) !== 0;
  }
  return mode.split(',').some((clause) => {
    const match = /^([ugoa]*)[+=]([rwxXst]*)$/.exec(clause);
    if (match === null) return false;
    const who = match[1] ?? '';
    const permissions = match[2] ?? '';
    return (
      ((who.includes('a') || who.includes('o')) && permissions.includes('w')) ||
      permissions.includes('s')
    );
  });
}

/** The variable names a builtin will set (`read a b`, `printf -v name`). */
function variableNames(program: string, values: readonly string[]): string[] {
  if (program === 'printf') {
    // `-v NAME` or joined `-vNAME`, before the format.
    const first = values[0] ?? '';
    if (!first.startsWith('-v')) return [];
    return [first === '-v' ? (values[1] ?? '') : first.slice(2)];
  }
  return values.filter((value) => !value.startsWith('-')).map((value) => value.split('=')[0] ?? '');
}
