/**
 * The shape a command line is reduced to before any permission question is
 * asked: simple commands with their words, assignments and redirections,
 * plus the constructs that cannot be analysed statically ("hazards").
 */

/** One shell word after quote removal. */
export type Word = {
  /** The literal value (quotes removed, escapes applied; glob characters kept). */
  value: string;
  /** The canonical text rules are matched against: the value, shell-quoted when needed. */
  text: string;
  /** Holds unquoted glob characters (`*`, `?`, `[`), so the shell may expand it to file names. */
  glob: boolean;
  /** Starts with an unquoted `~` (home-directory expansion). */
  tilde: boolean;
  /** Holds an expansion or substitution: the value is not known before running. */
  dynamic: boolean;
  /** For a glob: the literal value before the first unquoted glob character. */
  literalPrefix: string;
};

/** A redirection (`> file`, `2>&1`, `<<EOF`). */
export type Redirect = {
  /** The operator as written: `>`, `>>`, `<`, `&>`, `>&`, `<<`, `<<<`, … */
  operator: string;
  /** The file descriptor written before the operator, if any. */
  descriptor: number | undefined;
  /** The file (or descriptor) after the operator; undefined for here-documents. */
  target: Word | undefined;
};

/** `NAME=value`, before a command or on its own. */
export type Assignment = { name: string; value: Word | undefined };

/** What kind of statement a simple command came from. */
export type CommandKind = 'command' | 'assignment' | 'declaration' | 'test';

/** One simple command: `[assignments] name args [redirects]`. */
export type SimpleCommand = {
  kind: CommandKind;
  assignments: Assignment[];
  words: Word[];
  /** Its own redirections and those of the statements around it. */
  redirects: Redirect[];
  /** 0 for a sub-command of the line itself; more inside substitutions and compound statements. */
  depth: number;
};

/** Why part of a command cannot be analysed statically: always a safety ask. */
export type HazardKind =
  | 'parse-error'
  | 'parse-disagreement'
  | 'command-substitution'
  | 'process-substitution'
  | 'expansion'
  | 'arithmetic'
  | 'subshell'
  | 'control-structure'
  | 'function'
  | 'unsupported-syntax'
  | 'line-continuation'
  | 'hidden-character'
  | 'brace-expansion';

/** A construct found in the command that cannot be analysed, with its source text. */
export type Hazard = { kind: HazardKind; text: string };

/** A command line reduced to its simple commands (in source order) and hazards. */
export type ParsedScript = { commands: SimpleCommand[]; hazards: Hazard[] };

/** A word whose value cannot be known before running (read from input, named inside a file): no rule grants it. */
export const UNKNOWN_WORD: Word = {
  value: '',
  text: '',
  glob: false,
  tilde: false,
  dynamic: true,
  literalPrefix: '',
};

/** A word whose value is known and plain (no expansion, glob or tilde). */
export function literalWord(value: string): Word {
  return {
    value,
    text: quoteWord(value),
    glob: false,
    tilde: false,
    dynamic: false,
    literalPrefix: value,
  };
}

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Shell-quotes a literal value unless it is plain (`a b` → `'a b'`, `x` → `x`). */
export function quoteWord(value: string): string {
  if (PLAIN_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The part of a word after `from` characters of its value, as a word of its own (`--output=x` → `x`). */
export function wordSuffix(word: Word, from: number): Word {
  const value = word.value.slice(from);
  return {
    ...word,
    value,
    text: word.dynamic || word.glob ? value : quoteWord(value),
    tilde: !word.dynamic && value.startsWith('~'),
    literalPrefix: word.glob ? word.literalPrefix.slice(from) : value,
  };
}
