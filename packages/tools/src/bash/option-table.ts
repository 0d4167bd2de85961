import type { Word } from './syntax.js';
import { wordSuffix } from './syntax.js';

/** How an option takes its value: none, a required one, an optional joined one, or two words (`jq --arg NAME VALUE`). */
export type ValueKind = 'none' | 'required' | 'optional' | 'pair';

/** One option as a program defines it: its names and whether it is known to be harmless. */
export type OptionDefinition = {
  /** The first name, as written on a command line (`-o`, `--output`): how callers refer to it. */
  key: string;
  safe: boolean;
  /** What it reads: `file`, the file its value names (`date -f FILE`); `list`, files named inside one (`--files0-from`). */
  reads: OptionReads;
};

/** What an option makes a program read besides its operands (see `OptionDefinition.reads`). */
export type OptionReads = 'file' | 'list' | undefined;

/**
 * A program's full option list, compiled from a spec string (see
 * `compileOptionTable`). `abbreviate`: the program accepts any unambiguous
 * prefix of a long option (GNU getopt_long, git's parse-options).
 * `stopAtOperand`: options end at the first operand (`xargs`, `timeout`:
 * the rest is the command to run) instead of being taken anywhere (GNU
 * permutation).
 */
export type OptionTable = {
  short: ReadonlyMap<string, { definition: OptionDefinition; value: ValueKind }>;
  long: ReadonlyMap<string, { definition: OptionDefinition; value: ValueKind }>;
  abbreviate: boolean;
  stopAtOperand: boolean;
  /** Whether any option is unsafe, so a word that might turn into an option matters. */
  hasUnsafe: boolean;
};

/** One option found on a command line, by its definition's key. */
export type FoundOption = { key: string; safe: boolean; reads: OptionReads; values: Word[] };

/** A command line read against a table, or why it could not be read. */
export type ParsedOptions =
  { ok: true; options: FoundOption[]; operands: Word[] } | { ok: false; reason: string };

const SUFFIX: Record<string, ValueKind> = {
  '': 'none',
  '=': 'required',
  '?': 'optional',
  '==': 'pair',
};

/**
 * Compiles a spec string: options separated by spaces, each a comma-separated
 * list of its names; a one-letter name is a short option (`-n`), a longer one
 * a long option (`--lines`). A name ends with `=` when it takes a value, `?`
 * when the value is optional (joined only: `-d[FILE]`, `--debug[=FILE]`), `==`
 * for two values. A leading `!` marks an option that writes, runs code,
 * reaches the network or otherwise is not read-only; a leading `<` one whose
 * value is a file it reads (the last value of a pair: `--slurpfile NAME
 * FILE`), a leading `@` one that reads the files named inside its value or
 * its operands (`--files0-from=F`, `tree --fromfile`).
 * Example: `'n=,lines= q,quiet,silent !o=,output='`.
 */
export function compileOptionTable(
  spec: string,
  settings: { abbreviate?: boolean; stopAtOperand?: boolean } = {},
): OptionTable {
  const short = new Map<string, { definition: OptionDefinition; value: ValueKind }>();
  const long = new Map<string, { definition: OptionDefinition; value: ValueKind }>();
  let hasUnsafe = false;
  for (const entry of spec.split(/\s+/).filter((item) => item !== '')) {
    const safe = !entry.startsWith('!');
    hasUnsafe ||= !safe;
    const reads: OptionReads = entry.startsWith('<')
      ? 'file'
      : entry.startsWith('@')
        ? 'list'
        : undefined;
    const names = entry.replace(/^[!<@]/, '').split(',');
    const parsed = names.map((name) => {
      const match = /^([^=?]+)(==|=|\?)?$/.exec(name);
      const bare = match?.[1] ?? name;
      return { bare, value: SUFFIX[match?.[2] ?? ''] ?? 'none' };
    });
    const first = parsed[0]?.bare ?? '';
    const definition: OptionDefinition = {
      key: first.length === 1 ? `-${first}` : `--${first}`,
      safe,
      reads,
    };
    for (const { bare, value } of parsed) {
      (bare.length === 1 ? short : long).set(bare, { definition, value });
    }
  }
  return {
    short,
    long,
    abbreviate: settings.abbreviate ?? true,
    stopAtOperand: settings.stopAtOperand ?? false,
    hasUnsafe,
  };
}

/**
 * Reads a command's arguments the way its option parser does (GNU getopt_long
 * unless the table says otherwise): `--` ends options, a lone `-` is an
 * operand, short options combine (`-rf`) and take a value joined or in the
 * next word (`-vNAME`, `-v NAME`), an optional value only joined, long
 * options take `--name=value` or `--name value`, and a long option may be
 * abbreviated to any prefix that names one option. An unknown or ambiguous
 * option, a value given to an option without one, or a missing value fails:
 * the program would not run as we think, so nothing is proven about it.
 */
export function parseOptions(args: readonly Word[], table: OptionTable): ParsedOptions {
  const options: FoundOption[] = [];
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) continue;
    const text = word.value;
    if (text === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!text.startsWith('-') || text === '-') {
      operands.push(word);
      if (table.stopAtOperand) {
        operands.push(...args.slice(i + 1));
        break;
      }
      continue;
    }
    const step = text.startsWith('--')
      ? longOption(args, i, table, options)
      : shortOptions(args, i, table, options);
    if (typeof step === 'string') return { ok: false, reason: step };
    i = step;
  }
  return { ok: true, options, operands };
}

/** Reads `--name[=value]` at `index`; the index of its last word, or why it fails. */
function longOption(
  args: readonly Word[],
  index: number,
  table: OptionTable,
  found: FoundOption[],
): number | string {
  const word = args[index];
  if (word === undefined) return index;
  const equals = word.value.indexOf('=');
  const written = word.value.slice(2, equals === -1 ? undefined : equals);
  const match = lookUpLong(written, table);
  if (typeof match === 'string') return match;
  const { definition, value } = match;
  const values: Word[] = [];
  let last = index;
  if (equals !== -1) {
    if (value === 'none') return `--${written} takes no value`;
    values.push(wordSuffix(word, equals + 1));
    if (value === 'pair') {
      const second = args[++last];
      if (second === undefined) return `--${written} needs two values`;
      values.push(second);
    }
  } else if (value === 'required' || value === 'pair') {
    const count = value === 'pair' ? 2 : 1;
    for (let n = 0; n < count; n++) {
      const next = args[++last];
      if (next === undefined) return `--${written} needs a value`;
      values.push(next);
    }
  }
  found.push({ ...definition, values });
  return last;
}

/** The long option a written name stands for: exact, or the one option all names it begins share. */
function lookUpLong(
  written: string,
  table: OptionTable,
): { definition: OptionDefinition; value: ValueKind } | string {
  const exact = table.long.get(written);
  if (exact !== undefined) return exact;
  if (!table.abbreviate || written === '') return `unknown option --${written}`;
  const candidates = [...table.long.entries()].filter(([name]) => name.startsWith(written));
  const first = candidates[0]?.[1];
  if (first === undefined) return `unknown option --${written}`;
  const distinct = new Set(candidates.map(([, entry]) => entry.definition));
  if (distinct.size > 1) return `ambiguous option --${written}`;
  return first;
}

/** Reads a cluster of short options at `index`; the index of its last word, or why it fails. */
function shortOptions(
  args: readonly Word[],
  index: number,
  table: OptionTable,
  found: FoundOption[],
): number | string {
  const word = args[index];
  if (word === undefined) return index;
  const text = word.value;
  for (let j = 1; j < text.length; j++) {
    const letter = text[j] ?? '';
    const entry = table.short.get(letter);
    if (entry === undefined) return `unknown option -${letter}`;
    const { definition, value } = entry;
    if (value === 'none') {
      found.push({ ...definition, values: [] });
      continue;
    }
    const joined = j + 1 < text.length ? wordSuffix(word, j + 1) : undefined;
    if (value === 'optional') {
      found.push({ ...definition, values: joined ? [joined] : [] });
      return index;
    }
    let last = index;
    const values: Word[] = [];
    if (joined !== undefined) values.push(joined);
    while (values.length < (value === 'pair' ? 2 : 1)) {
      const next = args[++last];
      if (next === undefined) return `-${letter} needs a value`;
      values.push(next);
    }
    found.push({ ...definition, values });
    return last;
  }
  return index;
}

/** Whether one of the options found has one of these keys. */
export function hasKey(parsed: { options: readonly FoundOption[] }, ...keys: string[]): boolean {
  return parsed.options.some((option) => keys.includes(option.key));
}

/** The values given to the options with these keys. */
export function keyValues(parsed: { options: readonly FoundOption[] }, ...keys: string[]): Word[] {
  return parsed.options.flatMap((option) => (keys.includes(option.key) ? option.values : []));
}
