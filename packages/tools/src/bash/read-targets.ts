import { keyValues, parseOptions, type FoundOption } from './option-table.js';
import { optionTable } from './option-tables.js';
import { sedScriptReads } from './sed.js';
import type { CommandKind, Redirect, Word } from './syntax.js';
import { literalWord, UNKNOWN_WORD, wordSuffix } from './syntax.js';

/**
 * A word of a command that may name a file or directory it reads, still as
 * written (resolved later against the directories the line may have `cd`-ed
 * into). Found conservatively, without per-program option tables: every
 * operand and every `--option=value` value counts, so a false ask is
 * possible but a read is not missed.
 */
export type ReadWord = {
  word: Word;
  /** The command reads the whole tree below it (`grep -r`, `find`, `ls -R`, `du`). */
  recursive: boolean;
  /** It reads the contents of the files in that tree (`grep -r`, `rg`), not only their names (`find`, `ls -R`). */
  contents: boolean;
  /** Where it lands matters (the command only reads); for other commands only secrets count. */
  outsideMatters: boolean;
};

/** Programs whose operands are never files they read. */
const NO_FILE_OPERANDS = new Set([
  'echo',
  'printf',
  'pwd',
  'true',
  'false',
  'which',
  'type',
  'command',
  'hash',
  'date',
  'whoami',
  'id',
  'groups',
  'uname',
  'hostname',
  'basename',
  'dirname',
  'seq',
  'sleep',
  'expr',
  'yes',
  'cd',
  'pushd',
  'popd',
  'test',
  '[',
  '[[',
  'kill',
  'export',
  'unset',
]);

/** Programs whose first operand is a pattern or a program text, not a file, unless one comes by option. */
const PATTERN_FIRST: Record<string, readonly string[]> = {
  grep: ['-e', '--regexp', '-f', '--file'],
  egrep: ['-e', '--regexp', '-f', '--file'],
  fgrep: ['-e', '--regexp', '-f', '--file'],
  rg: ['-e', '--regexp', '-f', '--file'],
  ag: [],
  ack: [],
  sed: ['-e', '--expression', '-f', '--file'],
  awk: ['-f', '--file'],
  gawk: ['-f', '--file'],
  mawk: ['-f'],
  jq: ['-f', '--from-file'],
};

/** Programs that always read whole trees, from `.` when given no path. */
const ALWAYS_RECURSIVE = new Set(['rg', 'ag', 'ack', 'find', 'du', 'tree']);

/** Programs that list the current directory when given no path (`cd /etc && ls`). */
const LISTS_CURRENT = new Set(['ls', 'dir', 'vdir']);

/** Programs that read the contents of the files of the trees they walk (the others list names and sizes). */
const TREE_CONTENTS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack']);

/** Programs that read whole trees with an option (`grep -r`, `ls -R`), and those options. */
const RECURSIVE_WITH: Record<string, { short: string; long: readonly string[] }> = {
  grep: { short: 'rR', long: ['--recursive', '--dereference-recursive', '--directories=recurse'] },
  egrep: { short: 'rR', long: ['--recursive', '--dereference-recursive'] },
  fgrep: { short: 'rR', long: ['--recursive', '--dereference-recursive'] },
  ls: { short: 'R', long: ['--recursive'] },
};

/** Input redirections that name a file (`<`, `<>`); `<<<` and here-documents do not. */
const INPUT_OPERATORS = new Set(['<', '<>']);

/** The word standing for the current directory, read when a tree-reading command names no path. */
const CURRENT_DIRECTORY: Word = {
  value: '.',
  text: '.',
  glob: false,
  tilde: false,
  dynamic: false,
  literalPrefix: '.',
};

/**
 * Every word of one command that may name a path it reads: operands (not a
 * grep or sed pattern), `--option=value` values, `find`'s start points, the
 * paths fed by `find -exec` or `xargs` (`fed`), and input redirections; `.`
 * for a tree-reading or listing command given no path. `readsOnly`: the command only
 * reads, so a read outside the working directories matters too.
 */
export function commandReads(
  kind: CommandKind,
  program: string,
  args: readonly Word[],
  redirects: readonly Redirect[],
  readsOnly: boolean,
  fed: readonly Word[] | undefined,
): ReadWord[] {
  const fromRedirects = redirects.flatMap((redirect) =>
    INPUT_OPERATORS.has(redirect.operator) && redirect.target !== undefined
      ? [{ word: redirect.target, recursive: false, contents: true, outsideMatters: true }]
      : [],
  );
  if (kind !== 'command') return fromRedirects;
  const listed = globListings(args, readsOnly);
  const table = optionTable(program);
  const parsed = table === undefined ? undefined : parseOptions(args, table);
  const modelled = parsed?.ok === true ? parsed : undefined;
  // Files named by option values (`date -f F`, `grep -fF`, `jq --slurpfile N F`), or named inside one.
  const byOptions = modelled === undefined ? [] : optionReads(modelled.options);
  const plain = (words: readonly Word[]): ReadWord[] =>
    words.map((word) => ({ word, recursive: false, contents: true, outsideMatters: readsOnly }));
  if (NO_FILE_OPERANDS.has(program)) {
    if (table !== undefined && modelled === undefined)
      return [...plain(operandWords(program, args)), ...fromRedirects];
    return [...plain(byOptions), ...listed, ...fromRedirects];
  }
  const recursive = readsTrees(program, args);
  const contents = !recursive || (TREE_CONTENTS.has(program) && !listsNamesOnly(program, args));
  const operands =
    program === 'find'
      ? startPoints(args)
      : program === 'git'
        ? withRevisionPaths(operandWords(program, args))
        : modelled === undefined || program === 'awk' || program === 'gawk'
          ? operandWords(program, args)
          : [...modelledOperands(program, modelled.options, modelled.operands), ...byOptions];
  const readsCurrent = recursive || LISTS_CURRENT.has(program);
  const current = (operands.length === 0 && readsCurrent && fed === undefined) || program === 'git';
  // git reads the repository of the directory it runs in, whatever its operands.
  const words = current ? [...operands, CURRENT_DIRECTORY] : operands;
  // Paths fed by `find -exec` or `xargs` may be any file below a start point, or anything at
  // all; a command that only reads reads their contents (`-exec cat {}`), others do not (`rm`).
  const fedWords = (fed ?? []).map((word) => ({
    word,
    recursive: true,
    contents: readsOnly,
    outsideMatters: readsOnly,
  }));
  return [
    ...words.map((word) => ({ word, recursive, contents, outsideMatters: readsOnly })),
    ...fedWords,
    ...listed,
    ...fromRedirects,
  ];
}

/**
 * Every glob among the arguments, whatever the program does with it: bash
 * lists the directory to expand it (`echo ~/.ssh/*` shows the names of the
 * keys), so each path it may expand to is read by name (not by content).
 */
function globListings(args: readonly Word[], readsOnly: boolean): ReadWord[] {
  return args
    .filter((word) => word.glob)
    .map((word) => ({ word, recursive: false, contents: false, outsideMatters: readsOnly }));
}

const LISTED_FILES = UNKNOWN_WORD;

/**
 * The files options make a program read: the value of each option the
 * table marks as reading a file (the last of a pair), and an unknown path
 * for each that reads the files named inside another (`--files0-from`).
 */
function optionReads(options: readonly FoundOption[]): Word[] {
  return options.flatMap((option) => {
    if (option.reads === 'list') return [...option.values, LISTED_FILES];
    const file = option.reads === 'file' ? option.values.at(-1) : undefined;
    return file === undefined ? [] : [file];
  });
}

/**
 * The operands of a program read against its option table: all of them but
 * a lone `-`, the first left out for a pattern-first program given no
 * pattern by option, and for sed the files its script reads with `r`/`R`
 * (an unknown path when the script cannot be read).
 */
function modelledOperands(
  program: string,
  options: readonly FoundOption[],
  operands: readonly Word[],
): Word[] {
  const patternOptions = PATTERN_FIRST[program];
  const patternByOption =
    patternOptions !== undefined && options.some((option) => patternOptions.includes(option.key));
  const skip = patternOptions !== undefined && !patternByOption ? 1 : 0;
  const files = operands.slice(skip).filter((word) => word.value !== '-');
  if (program !== 'sed') return files;
  const expressions = keyValues({ options }, '-e');
  const scripts = expressions.length > 0 ? expressions : operands.slice(0, 1);
  const read = scripts.flatMap((script) =>
    script.dynamic ? undefined : (sedScriptReads(script.value) ?? [undefined]),
  );
  return [...files, ...read.map((file) => (file === undefined ? LISTED_FILES : literalWord(file)))];
}

/** Whether the command reads whole directory trees. */
function readsTrees(program: string, args: readonly Word[]): boolean {
  if (ALWAYS_RECURSIVE.has(program)) return true;
  const options = RECURSIVE_WITH[program];
  if (options === undefined) return false;
  return args.some((arg) => {
    const value = arg.value;
    if (value.startsWith('--')) return options.long.includes(value);
    return (
      value.startsWith('-') && [...value.slice(1)].some((char) => options.short.includes(char))
    );
  });
}

/** Git operands, plus the path of each `revision:path` (`git show HEAD:.env` reads `.env`). */
function withRevisionPaths(words: readonly Word[]): Word[] {
  return words.flatMap((word) => {
    const colon = word.value.indexOf(':');
    return colon === -1 || word.dynamic ? [word] : [word, wordSuffix(word, colon + 1)];
  });
}

/** `rg --files` lists the files it would search without reading them. */
function listsNamesOnly(program: string, args: readonly Word[]): boolean {
  return program === 'rg' && args.some((arg) => arg.value === '--files');
}

/** `find`'s start points: the words before its first expression. */
function startPoints(args: readonly Word[]): Word[] {
  const starts: Word[] = [];
  for (const arg of args) {
    if (/^[-(!]/.test(arg.value) && !arg.dynamic) break;
    starts.push(arg);
  }
  return starts;
}

/**
 * Operands and option values, after `--` every word; the first operand of a
 * pattern-first program is left out unless a pattern came by option. A short
 * option cluster with a `/` in it (`-f/etc/x`) counts its rest as a value.
 */
function operandWords(program: string, args: readonly Word[]): Word[] {
  const words: Word[] = [];
  const patternOptions = PATTERN_FIRST[program];
  let patternPending =
    patternOptions !== undefined &&
    !args.some((arg) =>
      patternOptions.some((option) => arg.value === option || arg.value.startsWith(`${option}=`)),
    );
  let afterDashes = false;
  for (const arg of args) {
    const value = arg.value;
    if (!afterDashes && !arg.dynamic && value === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && !arg.dynamic && value.startsWith('-') && value !== '-') {
      const equals = value.indexOf('=');
      if (value.startsWith('--') && equals !== -1) words.push(wordSuffix(arg, equals + 1));
      else if (!value.startsWith('--') && value.length > 2 && value.includes('/')) {
        words.push(wordSuffix(arg, 2));
      }
      continue;
    }
    if (patternPending) {
      patternPending = false;
      continue;
    }
    if (value !== '-') words.push(arg);
  }
  return words;
}
