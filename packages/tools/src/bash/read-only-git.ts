import type { Word } from './syntax.js';
import { hasOption, scanArguments } from './options.js';

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
  grep: (args) => !args.some((arg) => /^-[a-zA-Z0-9]*O/.test(arg.value)),
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
  version: true,
  branch: (args) => listsOnly(args, 'dDmMcCfut'),
  tag: (args) => listsOnly(args, 'dasfmFuev'),
  remote: remoteReadsOnly,
  stash: (args) => firstOperandIn(args, ['list', 'show'], false),
  worktree: (args) => firstOperandIn(args, ['list'], false),
  reflog: (args) => firstOperandIn(args, ['show'], true),
  config: (args) => {
    const scanned = scanArguments(args);
    const first = scanned.operands[0]?.value;
    if (first === 'get' || first === 'list' || configGet(args)) return true;
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
  '--version',
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-replace-objects',
]);

/**
 * Long options of git subcommands that write files, change refs or
 * configuration, run programs or reach the network. git's option parser
 * takes any unambiguous prefix (`git branch --edit-desc`, `git grep
 * --open=vi`), so a written option that is a prefix of one of these is
 * treated as it.
 */
const GIT_UNSAFE_LONG = [
  'output',
  'output-directory',
  'open-files-in-pager',
  'ext-diff',
  'upload-pack',
  'receive-pack',
  'exec',
  'edit-description',
  'set-upstream-to',
  'unset-upstream',
  'set-upstream',
  'delete',
  'move',
  'copy',
  'force',
  'track',
  'no-track',
  'create-reflog',
  'annotate',
  'sign',
  'local-user',
  'message',
  'file',
  'edit',
  'add',
  'replace-all',
  'unset',
  'unset-all',
  'rename-section',
  'remove-section',
  'textconv',
  'filters',
  // Runs gpg.
  'show-signature',
  // `git log --help` is `git help log`: it runs man or a browser.
  'help',
];

/**
 * Whether a git command only reads: harmless global options, a read-only
 * subcommand, no option that is (a prefix of) a writing or running one, and
 * the subcommand's own check (`git branch` only lists, `git remote show`
 * stays offline with `-n`). `git help` is not read-only: it runs `man` or a
 * browser; nor are `verify-commit`, `verify-tag` and signature formats, which run gpg.
 */
export function isReadOnlyGit(args: readonly Word[]): boolean {
  let index = 0;
  while (index < args.length && (args[index]?.value ?? '').startsWith('-')) {
    if (!GIT_HARMLESS_GLOBALS.has(args[index]?.value ?? '')) return false;
    index++;
  }
  const subcommand = args[index]?.value;
  if (subcommand === undefined) return true;
  const rest = args.slice(index + 1);
  if (rest.some(isUnsafeOption)) return false;
  // Signature placeholders in a format (`%G?`, `%GS`) make git run gpg.
  if (rest.some((arg) => arg.value.includes('%G'))) return false;
  const check = GIT_READ_ONLY[subcommand];
  if (check === undefined) return false;
  return check === true || check(rest);
}

function isUnsafeOption(arg: Word, index: number, args: readonly Word[]): boolean {
  if (args.slice(0, index).some((before) => before.value === '--')) return false;
  const text = arg.value;
  if (!text.startsWith('--') || text === '--') return false;
  const name = text.slice(2).split('=')[0] ?? '';
  return GIT_UNSAFE_LONG.some((unsafe) => unsafe.startsWith(name));
}

function listsOnly(args: readonly Word[], writingLetters: string): boolean {
  const scanned = scanArguments(args);
  const writes = args.some(
    (arg) =>
      /^-[^-]/.test(arg.value) && [...arg.value.slice(1)].some((l) => writingLetters.includes(l)),
  );
  if (writes) return false;
  return (
    scanned.operands.length === 0 ||
    hasOption(scanned, '-l', '--list') ||
    args.some((arg) => LIST_FILTERS.test(arg.value))
  );
}

/**
 * The filters that put `git branch` and `git tag` in list mode, whatever
 * follows (`git branch --contains HEAD` lists the branches holding HEAD;
 * the word after it is a commit, not a branch to create).
 */
const LIST_FILTERS = /^--(?:no-)?(?:contains|merged)(?:=|$)|^--points-at(?:=|$)/;

/** `git config` options that only choose where a key is looked up or how it is shown. */
const CONFIG_LOOKUP = new Set([
  '--global',
  '--local',
  '--system',
  '--worktree',
  '--show-origin',
  '--show-scope',
  '--includes',
  '--no-includes',
  '--null',
  '-z',
  '--name-only',
]);

/** `git config [--global] section.key`: one key and no value prints the key's value. */
function configGet(args: readonly Word[]): boolean {
  const scanned = scanArguments(args);
  const [key, ...rest] = scanned.operands;
  return (
    key !== undefined &&
    rest.length === 0 &&
    !key.dynamic &&
    /^[A-Za-z0-9-]+(?:\.[^\s=]+)?\.[A-Za-z0-9-]+$/.test(key.value) &&
    scanned.options.every((option) => option.value === undefined && CONFIG_LOOKUP.has(option.name))
  );
}

function firstOperandIn(
  args: readonly Word[],
  allowed: readonly string[],
  noneAllowed: boolean,
): boolean {
  const first = scanArguments(args).operands[0]?.value;
  return first === undefined ? noneAllowed : allowed.includes(first);
}

/** `git remote`, `-v`, `get-url`, and `show -n` (without `-n`, `show` asks the remote over the network). */
function remoteReadsOnly(args: readonly Word[]): boolean {
  const scanned = scanArguments(args);
  const first = scanned.operands[0]?.value;
  if (first === undefined)
    return scanned.options.every((option) => option.name === '-v' || option.name === '--verbose');
  if (first === 'get-url') return true;
  return first === 'show' && hasOption(scanned, '-n');
}
