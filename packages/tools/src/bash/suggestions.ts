import type { PermissionRule } from '@parley/core';
import type { AnalysedCommand } from './analysis.js';
import { inPlaceEdit } from './in-place.js';
import { programBaseName } from './programs.js';
import { escapeRuleText } from './rules.js';

/** At most this many rules are suggested for one call (SPEC section 7). */
export const MAX_SUGGESTIONS = 5;

/**
 * The suggested rule for one sub-command (SPEC section 7): `{command}
 * {subcommand}:*`, after the env assignments that are part of its text. When
 * the second word is an option, the prefix runs on to the first word that is
 * not (`python -c 'x':*`, `rm -f a.txt:*`), so a suggestion never allows a
 * whole family by a flag. None for a bare word (`make`).
 */
export function prefixRule(command: AnalysedCommand): PermissionRule | undefined {
  const words = command.tokens.slice(command.envTokens);
  if (words.length < 2) return undefined;
  const inPlace = inPlacePrefix(command, words);
  const length = inPlace ?? interpreterPrefix(command.program, words);
  if (length === 0) return undefined;
  const prefix = [...command.tokens.slice(0, command.envTokens), words[0] ?? ''];
  if (length !== undefined) prefix.push(...words.slice(1, length));
  else {
    for (const word of words.slice(1)) {
      prefix.push(word);
      if (!word.startsWith('-')) break;
    }
  }
  return {
    toolName: 'Bash',
    ruleContent: `${escapeRuleText(prefix.join(' '))}:*`,
    behavior: 'allow',
    source: 'suggested',
  };
}

/**
 * How many words an in-place edit's suggestion covers: through its `-i`
 * switch (`sed -i:*`, `perl -pi:*`), which allows every edit of the named
 * files while a script that does more stays a safety ask; undefined when
 * the command is not such an edit.
 */
function inPlacePrefix(command: AnalysedCommand, words: readonly string[]): number | undefined {
  const edit = inPlaceEdit(command.program, command.args);
  if (edit === undefined || !('files' in edit)) return undefined;
  const at = words.findIndex(
    (word, index) => index > 0 && (/^-[^-]*i/.test(word) || word.startsWith('--in-place')),
  );
  return at > 0 ? at + 1 : undefined;
}

/** Programs that run code they are given inline (`awk PROGRAM`, `sh -c`): no prefix of theirs is safe to allow. */
const INLINE_CODE =
  /^(awk|gawk|mawk|nawk|sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|busybox|expect)$/;

/** Interpreters that run a script file, and also take code or code to load through options (`-e`, `-c`, `-r FILE`, `--require`). */
const INTERPRETERS =
  /^(node|nodejs|deno|bun|tsx|ts-node|npx|perl[0-9.]*|python[0-9.]*|pypy[0-9.]*|ruby|irb|php[0-9.]*|lua[0-9.]*|luajit|Rscript|R|tclsh[0-9.]*|wish|osascript|pwsh|powershell|java|jshell|groovy|scala|kotlin|elixir|iex|erl|escript|julia|ghci|runghc|swift)$/;

/** Interpreters whose script comes after a `run` subcommand (`deno run main.ts`). */
const RUN_SUBCOMMAND = /^(deno|bun)$/;

/**
 * How many words of an interpreter's call its suggestion may cover: 0 for
 * none, undefined when the program is not an interpreter (the usual prefix).
 * A prefix that ends in the interpreter's options (`node -e '…':*`, `perl -e
 * '…':*`) would also allow a later call that adds another `-e` or a `-r
 * FILE`, so none is suggested; a script file (`node build.js:*`, `deno run
 * main.ts:*`) or a module (`python -m pytest:*`) names what runs, and
 * arguments after it go to the script. Inline-code programs (`awk`,
 * shells) get no suggestion at all.
 */
function interpreterPrefix(program: string, words: readonly string[]): number | undefined {
  const name = programBaseName(program);
  if (INLINE_CODE.test(name)) return 0;
  if (!INTERPRETERS.test(name)) return undefined;
  const isOperand = (at: number): boolean => !(words[at] ?? '-').startsWith('-');
  if (RUN_SUBCOMMAND.test(name)) return words[1] === 'run' && isOperand(2) ? 3 : 0;
  if (isOperand(1)) return 2;
  return /^python|^pypy/.test(name) && words[1] === '-m' && isOperand(2) ? 3 : 0;
}

/**
 * One rule per distinct prefix of the given sub-commands, or none at all
 * when one of them cannot have a rule or there would be more than
 * `MAX_SUGGESTIONS`: a partial set would not allow the call.
 */
export function prefixRules(commands: readonly AnalysedCommand[]): PermissionRule[] {
  const rules = new Map<string, PermissionRule>();
  for (const command of commands) {
    const rule = prefixRule(command);
    if (rule === undefined || rule.ruleContent === null) return [];
    rules.set(rule.ruleContent, rule);
  }
  return rules.size > MAX_SUGGESTIONS ? [] : [...rules.values()];
}
