import type { Word } from './syntax.js';
import { hasOption, scanArguments } from './options.js';
import { sedScriptEffect } from './sed.js';

/** Programs that only read, whatever their arguments (SPEC section 7). */
const ALWAYS_READ_ONLY = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'ls',
  'pwd',
  'which',
  'whoami',
  'id',
  'uname',
  'echo',
  'true',
  'false',
  ':',
  'test',
  '[',
  '[[',
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
  'hexdump',
  'column',
  'fold',
  'rev',
  'tac',
  'seq',
  'sleep',
  'whereis',
  'md5sum',
  'sha1sum',
  'sha224sum',
  'sha256sum',
  'sha384sum',
  'sha512sum',
  'shasum',
  'cksum',
  'b2sum',
  'sum',
  'strings',
  'ps',
  'free',
  'uptime',
  'groups',
  'nproc',
  'arch',
  'tty',
  'printenv',
  'locale',
  'type',
  'cd',
  'pushd',
  'popd',
  'dirs',
  'paste',
  'join',
  'expand',
  'unexpand',
  'fmt',
  'pr',
  'look',
  'cal',
  'jq',
  'pgrep',
  'numfmt',
  'factor',
  'expr',
  'getconf',
  'logname',
  'users',
  'who',
  'jobs',
  'env',
  'xargs',
  'time',
  'timeout',
  'nice',
  'stdbuf',
]);

/**
 * Programs that stay read-only with arguments we cannot see (`xargs cat`,
 * `find -exec grep x {} +`): they have no option that writes or runs code.
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
  'shasum',
  'cksum',
  'echo',
  'realpath',
  'readlink',
]);

/** git subcommands that only read, some with a check of their arguments. */
const GIT_READ_ONLY: Record<string, ((args: readonly Word[]) => boolean) | true> = {
  status: true,
  log: true,
  diff: true,
  show: true,
  blame: true,
  annotate: true,
  shortlog: true,
  describe: true,
  'rev-parse': true,
  'rev-list': true,
  'ls-files': true,
  'ls-tree': true,
  'cat-file': true,
  grep: true,
  'merge-base': true,
  'name-rev': true,
  'for-each-ref': true,
  'show-ref': true,
  'count-objects': true,
  'check-ignore': true,
  'check-attr': true,
  var: true,
  whatchanged: true,
  cherry: true,
  'range-diff': true,
  'diff-tree': true,
  'diff-files': true,
  'diff-index': true,
  'show-branch': true,
  'verify-commit': true,
  'verify-tag': true,
  version: true,
  help: true,
  branch: (args) =>
    listsOnly(args, [
      '-d',
      '-D',
      '-m',
      '-M',
      '-c',
      '-C',
      '-f',
      '-u',
      '-t',
      '--delete',
      '--move',
      '--copy',
      '--force',
      '--set-upstream-to',
      '--unset-upstream',
      '--edit-description',
      '--track',
    ]),
  tag: (args) =>
    listsOnly(args, [
      '-d',
      '-a',
      '-s',
      '-f',
      '-m',
      '-F',
      '-u',
      '--delete',
      '--annotate',
      '--sign',
      '--force',
      '--message',
      '--file',
    ]),
  remote: (args) => firstOperandIn(args, ['show', 'get-url'], true),
  stash: (args) => firstOperandIn(args, ['list', 'show'], false),
  worktree: (args) => firstOperandIn(args, ['list'], false),
  reflog: (args) => firstOperandIn(args, ['show'], true),
  submodule: (args) => firstOperandIn(args, ['status'], true),
  config: (args) => {
    const scanned = scanArguments(args);
    const first = scanned.operands[0]?.value;
    if (first === 'get' || first === 'list') return true;
    return hasOption(
      scanned,
      '--get',
      '--get-all',
      '--get-regexp',
      '--get-urlmatch',
      '--list',
      '-l',
    );
  },
};

/** git options before the subcommand that change nothing about what runs. */
const GIT_HARMLESS_GLOBALS = new Set([
  '--no-pager',
  '-P',
  '-p',
  '--paginate',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-replace-objects',
]);

/** Options of read-only git subcommands that write files or run programs. */
const GIT_WRITING_OPTION =
  /^(--output|--ext-diff|-O|--open-files-in-pager|--upload-pack|--exec|--receive-pack)/;

/**
 * Whether running `program args` only reads (SPEC section 7). Redirections
 * and the commands a wrapper runs are judged by the caller; this looks at
 * the program and its own options (`find` without `-delete`, `sed` without
 * `-i` or `w`, `git log` without `--output`, `sort` without `-o`).
 */
export function isReadOnlyProgram(program: string, args: readonly Word[]): boolean {
  const values = args.map((arg) => arg.value);
  switch (program) {
    case 'git':
      return isReadOnlyGit(args);
    case 'find':
      return !values.some((value) => /^-(delete|fprint0?|fprintf|fls)$/.test(value));
    case 'sed':
      return isReadOnlySed(args);
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return isReadOnlyAwk(args);
    case 'sort':
      return !values.some(
        (value) => /^(-o|--output|--compress-program)/.test(value) || /^-[a-zA-Z]*o/.test(value),
      );
    case 'uniq':
    case 'xxd':
      return scanArguments(args, { short: 'fsw' }).operands.length <= 1;
    case 'tree':
      return !values.some((value) => /^-[a-zA-Z]*[oR]/.test(value) || value.startsWith('--output'));
    case 'file':
      return !values.some((value) => /^-[a-zA-Z]*C|^--compile/.test(value));
    case 'base64':
      return !values.some((value) => /^-[a-zA-Z]*o|^--output/.test(value));
    case 'rg':
      return !values.some((value) => /^--(pre|hostname-bin)\b/.test(value));
    case 'printf':
      return values[0] !== '-v';
    case 'date':
      return !values.some((value) => /^-[a-zA-Z]*s|^--set/.test(value) || /^[0-9]/.test(value));
    case 'hostname':
      return values.every(
        (value) => value.startsWith('-') && !/^-[a-zA-Z]*[Fb]|^--(file|boot)/.test(value),
      );
    case 'command':
      return values.some((value) => value === '-v' || value === '-V');
    default:
      return ALWAYS_READ_ONLY.has(program);
  }
}

function isReadOnlyGit(args: readonly Word[]): boolean {
  let index = 0;
  while (index < args.length && (args[index]?.value ?? '').startsWith('-')) {
    if (!GIT_HARMLESS_GLOBALS.has(args[index]?.value ?? '')) return false;
    index++;
  }
  const subcommand = args[index]?.value;
  if (subcommand === undefined) return true;
  const rest = args.slice(index + 1);
  if (rest.some((arg) => GIT_WRITING_OPTION.test(arg.value))) return false;
  const check = GIT_READ_ONLY[subcommand];
  if (check === undefined) return false;
  return check === true || check(rest);
}

function listsOnly(args: readonly Word[], writing: readonly string[]): boolean {
  const scanned = scanArguments(args);
  if (scanned.options.some((option) => writing.includes(option.name))) return false;
  return scanned.operands.length === 0 || hasOption(scanned, '-l', '--list');
}

function firstOperandIn(
  args: readonly Word[],
  allowed: readonly string[],
  noneAllowed: boolean,
): boolean {
  const first = scanArguments(args).operands[0]?.value;
  return first === undefined ? noneAllowed : allowed.includes(first);
}

function isReadOnlySed(args: readonly Word[]): boolean {
  const scanned = scanArguments(args, {
    short: 'efl',
    long: ['expression', 'file', 'line-length'],
  });
  if (hasOption(scanned, '-i', '-I', '--in-place', '-f', '--file')) return false;
  const expressions = scanned.options.filter(
    (option) => option.name === '-e' || option.name === '--expression',
  );
  const scripts =
    expressions.length > 0 ? expressions.map((option) => option.value) : [scanned.operands[0]];
  const sandboxed = hasOption(scanned, '--sandbox');
  return scripts.every(
    (script) =>
      script !== undefined &&
      !script.dynamic &&
      (sandboxed || sedScriptEffect(script.value) === 'prints'),
  );
}

/** awk programs that cannot run commands or write files: no system(), pipes, `>`, getline or `@` directives. */
function isReadOnlyAwk(args: readonly Word[]): boolean {
  const scanned = scanArguments(args, {
    short: 'Fvf',
    long: ['field-separator', 'assign', 'file'],
  });
  if (hasOption(scanned, '-f', '--file')) return false;
  const program = scanned.operands[0];
  return program !== undefined && !program.dynamic && !/system|getline|[|>@`]/.test(program.value);
}
