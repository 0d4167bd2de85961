import type { Word } from './syntax.js';
import { hasKey, keyValues, parseOptions, type FoundOption } from './option-table.js';
import { optionTable } from './option-tables.js';
import { isReadOnlyFind } from './read-only-find.js';
import { isReadOnlyGit } from './read-only-git.js';
import { awkCode, awkRunsCommands } from './awk.js';
import { leavesProgramsAlone } from './env-vars.js';
import { SHELLS } from './wrappers.js';
import { sedScriptEffect } from './sed.js';

/** Builtins whose every argument is data (text, a test, a directory-stack entry): nothing to prove. */
const FREE_ARGUMENTS = new Set([
  'echo',
  'true',
  'false',
  ':',
  'test',
  '[',
  '[[',
  'expr',
  'pushd',
  'popd',
  'dirs',
]);

/** Programs with an option table whose operands are files or text they read. */
const TABLE_READ_ONLY = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'ls',
  'stat',
  'du',
  'df',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'diff',
  'cmp',
  'comm',
  'cut',
  'tr',
  'nl',
  'od',
  'fold',
  'tac',
  'seq',
  'sleep',
  'md5sum',
  'sha1sum',
  'sha224sum',
  'sha256sum',
  'sha384sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'sum',
  'paste',
  'join',
  'expand',
  'unexpand',
  'fmt',
  'numfmt',
  'factor',
  'pwd',
  'whoami',
  'id',
  'uname',
  'groups',
  'nproc',
  'arch',
  'tty',
  'logname',
  'users',
  'who',
  'base64',
  'hexdump',
  'column',
  'look',
  'rev',
  'which',
  'whereis',
  'pgrep',
  'free',
  'uptime',
  'file',
  'locale',
  'getconf',
  'jq',
  'rg',
  'tree',
  'sort',
  'type',
  'jobs',
  'xargs',
  'time',
  'timeout',
  'nice',
  'stdbuf',
]);

/** Checks of the operands, for programs where an operand can be an output or a setting. */
const OPERAND_CHECKS: Record<
  string,
  (operands: readonly Word[], options: FoundOption[]) => boolean
> = {
  // `uniq IN OUT` writes OUT; a glob may expand to both.
  uniq: (operands) => operands.length <= 1 && operands.every((word) => !word.glob),
  // `date MMDDhhmm` sets the clock; `+FORMAT` prints.
  date: (operands) => operands.every((word) => word.value.startsWith('+')),
  // `hostname NAME` sets the host name.
  hostname: (operands) => operands.length === 0,
  // `strings @FILE` reads more options from FILE.
  strings: (operands) => operands.every((word) => !word.value.startsWith('@')),
  cd: (operands) => operands.length <= 1 && operands.every((word) => !word.glob),
  // BSD-style words: no `e` (shows other processes' environments) and no letter taking a value.
  ps: (operands) => operands.every((word) => /^([aAcfhjlmrsSTuvwxXnL]+|\d+)$/.test(word.value)),
  // `env NAME=value… command` runs a command (judged on its own); without one it prints the environment.
  env: (operands) => operands.some((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value)),
  command: (_, options) => options.some((option) => option.key === '-v' || option.key === '-V'),
  jq: (operands, options) => isReadOnlyJq(options, operands),
};

/** xxd's flags (each a word of its own: its parser reads `-ius` as `-i`) and the options taking the next word. */
const XXD_FLAGS = new Set([
  '-a',
  '-b',
  '-C',
  '-E',
  '-e',
  '-i',
  '-p',
  '-ps',
  '-r',
  '-u',
  '-d',
  '-v',
  '-h',
]);
const XXD_VALUES = new Set(['-c', '-g', '-l', '-o', '-s', '-n']);

/**
 * `xxd [flags] [IN]`: every option a whole word xxd reads the way we do,
 * before at most one input file (xxd takes no options after it, and a second
 * operand is the output file it writes); no glob that may expand to two.
 */
function isReadOnlyXxd(args: readonly Word[]): boolean {
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index];
    if (word === undefined || !word.value.startsWith('-') || word.value === '-') break;
    if (word.dynamic || word.glob) return false;
    if (XXD_VALUES.has(word.value)) index++;
    else if (!XXD_FLAGS.has(word.value)) return false;
  }
  const rest = args.slice(index);
  return rest.length <= 1 && rest.every((word) => !word.glob && !word.dynamic);
}

/** The words that make almost any program print its version or usage and stop. */
const VERSION_FLAGS = /^(?:--version|-v|-V)$/;

/**
 * Programs with no table here, called with only a version flag (`node
 * --version`, `python3 -V`, `cargo -v`): programs on the PATH print their
 * version or usage and stop. Only a bare program name counts (`./x -v` runs
 * whatever `./x` is), and not a shell (`sh -v` reads a script from input).
 */
function printsVersion(program: string, args: readonly Word[]): boolean {
  return (
    args.length === 1 &&
    VERSION_FLAGS.test(args[0]?.value ?? '') &&
    /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(program) &&
    !NO_VERSION_FLAGS.has(program) &&
    !(INTERPRETERS.has(program) && args[0]?.value === '-v') &&
    optionTable(program) === undefined
  );
}

/** Programs whose version flags are not taken as such: shells (`sh -v` reads a script from input) and privilege tools. */
const NO_VERSION_FLAGS = new Set([
  'compgen',
  'complete',
  'set',
  'shopt',
  'history',
  'read',
  'mapfile',
  'readarray',
  'help',
  'enable',
  'ulimit',
  'umask',
  'trap',
  'alias',
  'hash',
  'bind',
  'fc',
  'kill',
  'wait',
  ...SHELLS,
  'sudo',
  'doas',
  'su',
]);

/** Interpreters whose `-v` is verbose mode (it reads a script from input); `--version` and `-V` print the version. */
const INTERPRETERS = new Set([
  'python',
  'python2',
  'python3',
  'perl',
  'ruby',
  'php',
  'lua',
  'tclsh',
  'wish',
]);

/**
 * Programs that stay read-only with arguments we cannot see (`xargs cat`,
 * `find -exec grep x {} +`): none of their options writes or runs code, and
 * their operands are all files they read.
 */
export const READ_ONLY_WITH_ANY_ARGUMENTS = new Set([
  'cat',
  'head',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'ls',
  'stat',
  'du',
  'basename',
  'dirname',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'cksum',
  'echo',
  'realpath',
  'readlink',
]);

/**
 * Whether running `program args` only reads (SPEC section 7), as a positive
 * proof: the program is one we know; every option, after GNU-style prefix
 * expansion against the program's full option list, is known and harmless;
 * and every operand's role is known (`uniq IN OUT` writes OUT, `date 0101`
 * sets the clock). Anything else is not read-only. Redirections and the
 * commands a wrapper runs are judged by the caller.
 */
export function isReadOnlyProgram(program: string, args: readonly Word[]): boolean {
  if (FREE_ARGUMENTS.has(program)) return true;
  switch (program) {
    case 'git':
      return isReadOnlyGit(args);
    case 'find':
      return isReadOnlyFind(args);
    case 'xxd':
      return isReadOnlyXxd(args);
    case 'printf':
      // `printf -v NAME` (also `-vNAME`) assigns a variable; anything else is the format.
      return args[0] === undefined || !args[0].value.startsWith('-') || args[0].value === '--';
    case 'sed':
      return withProvenOptions(program, args, isReadOnlySed);
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return withProvenOptions(program, args, isReadOnlyAwk);
    default: {
      if (printsVersion(program, args)) return true;
      const check = OPERAND_CHECKS[program];
      if (check === undefined && !TABLE_READ_ONLY.has(program)) return false;
      return withProvenOptions(program, args, (options, operands) =>
        check === undefined ? true : check(operands, options),
      );
    }
  }
}

/**
 * Whether a `declare`/`typeset`/`export`/`readonly`/`local` only sets or
 * marks the names it is given. With no name, or with `-p`/`-f`/`-F`, it
 * prints variables or functions (`export -p`, `declare -x`), which may hold
 * secrets, so it is not read-only. Setting or exporting a name programs may
 * read (`export GREP_OPTIONS=…`) is not read-only either (see
 * `leavesProgramsAlone`). `unset` only removes.
 */
export function isReadOnlyDeclaration(keyword: string, args: readonly Word[]): boolean {
  if (keyword === 'unset') return true;
  const flags = args.filter((arg) => /^[-+]/.test(arg.value));
  const names = args.filter((arg) => !/^[-+]/.test(arg.value));
  return (
    names.length > 0 &&
    !flags.some((flag) => /[pfF]/.test(flag.value)) &&
    names.every((word) => !word.dynamic && leavesProgramsAlone(word.value.split('=')[0] ?? ''))
  );
}

/**
 * Reads the arguments against the program's table and, when every option is
 * known and harmless, applies the program's own check. A glob that might
 * expand to an option (`sort *` in a directory holding a file `-o`) proves
 * nothing for a program that has harmful options.
 */
function withProvenOptions(
  program: string,
  args: readonly Word[],
  check: (options: FoundOption[], operands: Word[]) => boolean,
): boolean {
  const table = optionTable(program);
  if (table === undefined) return false;
  if (table.hasUnsafe && args.some((arg) => arg.glob && !/^[^-*?[]/.test(arg.literalPrefix)))
    return false;
  const parsed = parseOptions(args, table);
  if (!parsed.ok || parsed.options.some((option) => !option.safe)) return false;
  return check(parsed.options, parsed.operands);
}

function isReadOnlySed(options: FoundOption[], operands: Word[]): boolean {
  const expressions = keyValues({ options }, '-e');
  const scripts = expressions.length > 0 ? expressions : operands.slice(0, 1);
  if (scripts.length === 0) return false;
  const sandboxed = hasKey({ options }, '--sandbox');
  return scripts.every(
    (script) => !script.dynamic && (sandboxed || sedScriptEffect(script.value) === 'prints'),
  );
}

/**
 * awk programs that only print: no system(), getline, pipes, `@`
 * directives, no output redirection (`>` after `print`/`printf` in its
 * statement) and nothing that reads beyond the operands: `ENVIRON` (the
 * environment's secrets), `ARGV`/`ARGC` (which files are read), `PROCINFO`.
 * Comparisons (`$2 > 10`, `if (n > 1) print`) are fine.
 */
function isReadOnlyAwk(_: FoundOption[], operands: Word[]): boolean {
  const program = operands[0];
  if (program === undefined || program.dynamic) return false;
  const code = awkCode(program.value);
  if (code === undefined) return false;
  if (awkRunsCommands(code) || /ENVIRON|ARGV|ARGC|PROCINFO/.test(code)) return false;
  return code.split(/[;{}\n]/).every((statement) => !/\bprintf?\b[^]*>/.test(statement));
}

/**
 * jq filters that only transform their input: not `env`/`$ENV` (the
 * environment's secrets), `input_filename`, or `import`/`include` (modules
 * read from the search path), and not a filter read from a file (`-f`).
 */
function isReadOnlyJq(options: readonly FoundOption[], operands: readonly Word[]): boolean {
  if (hasKey({ options }, '-f')) return false;
  const filter = operands[0];
  if (filter === undefined) return true;
  return (
    !filter.dynamic &&
    !/\$ENV\b|\$__prog|(?<![\w$])(?:env|input_filename|import|include|get_search_list)\b/.test(
      filter.value,
    )
  );
}
