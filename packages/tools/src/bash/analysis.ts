import { CommandAnalysisError } from '../errors.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import { isSafeVariable, leavesProgramsAlone } from './env-vars.js';
import { parseScript } from './parse.js';
import { loadBashParser, readyBashParser } from './parser.js';
import { loadSecondParser, secondParserReady } from './second-parser.js';
import { knownProgram, programBaseName } from './programs.js';
import {
  isReadOnlyDeclaration,
  isReadOnlyProgram,
  READ_ONLY_WITH_ANY_ARGUMENTS,
} from './read-only.js';
import { commandReads, type ReadWord } from './read-targets.js';
import { commandSafety } from './safety.js';
import { secretExpansions } from './secret-expansions.js';
import { parsePlainCommand } from './simple-parse.js';
import type { Assignment, CommandKind, Hazard, ParsedScript, Redirect, Word } from './syntax.js';
import { UNKNOWN_WORD } from './syntax.js';
import {
  changedDirectory,
  isFilesystemCommand,
  programTargets,
  redirectTargets,
  type TargetWord,
} from './targets.js';
import { unwrap, type WrapperKind } from './wrappers.js';

/** A path a command changes, with how many `cd`s came before it (see `CommandAnalysis.directories`). */
export type Target = TargetWord & { cdIndex: number };

/** A path a command may read, with how many `cd`s came before it. */
export type ReadTarget = ReadWord & { cdIndex: number };

/** One simple command with everything the permission checks need to know about it. */
export type AnalysedCommand = {
  kind: CommandKind;
  /** 0 for a sub-command of the line; more for commands nested in substitutions, compound statements or wrappers. */
  depth: number;
  /** The program as known (`rm` for `/bin/rm`, `./rm` stays `./rm`); empty for a bare assignment. */
  program: string;
  args: Word[];
  assignments: Assignment[];
  /** The text allow rules are matched against: words, after env assignments that are not known safe. */
  text: string;
  /** `text` split into its words; the first `envTokens` are assignments. */
  tokens: string[];
  envTokens: number;
  /** Every text deny and ask rules are tried against (also without env assignments, with `/bin/rm` as `rm`). */
  matchTexts: string[];
  /** How it runs other commands, if it does (`time`, `xargs`, `find -exec`, `sh -c`). */
  wrapper: WrapperKind | undefined;
  /** The commands it runs. */
  inner: AnalysedCommand[];
  /** It and what it runs only read (its output redirections aside). */
  readsOnly: boolean;
  /** It only reads, not counting the commands it runs (`find -exec`, `xargs`, `time`). */
  programReadsOnly: boolean;
  /** A plain file-system command (`mkdir`, `cp`, `rm`, …). */
  filesystem: boolean;
  /** Paths it changes: its own targets and its output redirections. */
  targets: Target[];
  /** Paths it may read (see `commandReads`). */
  reads: ReadTarget[];
  /** Why it is dangerous in any context (safety asks). */
  safety: string[];
  /** The program name when it is a glob (`/bin/r?`): deny and ask rules take it as any program it may match. */
  programGlob: string | undefined;
};

/** A command line, analysed: its sub-commands, everything it runs, and what it changes. */
export type CommandAnalysis = {
  source: string;
  /** The sub-commands of the line (split at `;`, `&&`, `||`, `|`, `&`, newlines), in order. */
  parts: AnalysedCommand[];
  /** Every command that may run: parts, nested commands and commands run by wrappers. */
  all: AnalysedCommand[];
  hazards: Hazard[];
  /** Why the line is a safety ask whatever the rules: hazards and dangerous commands. */
  safety: string[];
  /** Every command only reads and nothing is written (SPEC section 7, read-only). */
  readOnly: boolean;
  /** Every path written or removed. */
  targets: Target[];
  /** Every path that may be read. */
  reads: ReadTarget[];
  /** The `cd`s of the line in order: a path, or undefined when unknown (`cd -`). */
  directories: (string | undefined)[];
};

const HAZARD_TEXT: Record<Hazard['kind'], string> = {
  'parse-error': 'the command could not be parsed',
  'parse-disagreement': 'bash would not read the command the way it was analysed',
  'command-substitution': 'command substitution',
  'process-substitution': 'process substitution',
  expansion: 'variable expansion',
  arithmetic: 'arithmetic evaluation',
  subshell: 'subshell',
  'control-structure': 'control structure',
  function: 'function definition',
  'unsupported-syntax': 'shell syntax that cannot be analysed',
  'line-continuation': 'a backslash-newline inside a word',
  'hidden-character': 'an invisible or look-alike character',
  'brace-expansion': 'a brace expansion too large to analyse',
};

const NESTED_SCRIPT_LIMIT = 3;
const cache = new BoundedCache<string, CommandAnalysis>(1024);
/** Longer lines (a big here-document) are analysed each time rather than kept. */
const MAX_CACHED_LENGTH = 16_384;

/**
 * Analyses a command line with the bash grammar if it has loaded; before
 * that, only a plain single command can be read, and anything else gives
 * undefined (the caller then assumes the worst). Until the second parser
 * (mvdan/sh) has loaded too, a parsed line carries a `parse-disagreement`
 * hazard, so it is never proven harmless. Results are cached once both are
 * there.
 */
export function analyseCommandLine(source: string): CommandAnalysis | undefined {
  const cached = cache.get(source);
  if (cached !== undefined) return cached;
  const parser = readyBashParser();
  const parse =
    parser === undefined ? parsePlainCommand : (text: string) => parseScript(parser, text);
  const parsed = parse(source);
  if (parsed === undefined) return undefined;
  const analysis = new Analyser(parse).analyse(source, parsed);
  // Before the second parser is there, nothing is proven: such an answer is not kept.
  if (parser !== undefined && secondParserReady() && source.length <= MAX_CACHED_LENGTH)
    cache.set(source, analysis);
  return analysis;
}

/**
 * Loads the grammar and the second parser if needed, then analyses the
 * command line. A second parser that fails to load leaves every line
 * unproven (a safety ask), not unanalysed.
 */
export async function analyseCommandLineAsync(source: string): Promise<CommandAnalysis> {
  await Promise.all([loadBashParser(), loadSecondParser().catch(() => undefined)]);
  const analysis = analyseCommandLine(source);
  if (analysis === undefined) throw new CommandAnalysisError('The bash grammar is not available.');
  return analysis;
}

class Analyser {
  private readonly all: AnalysedCommand[] = [];
  private readonly hazards: Hazard[] = [];
  private readonly directories: (string | undefined)[] = [];
  /** Every operand of the line's commands, with its `cd` count: what `xargs` may be fed. */
  private readonly operands: ReadTarget[] = [];

  constructor(private readonly parse: (source: string) => ParsedScript | undefined) {}

  analyse(source: string, parsed: ParsedScript): CommandAnalysis {
    const parts = this.script(parsed, 0, 0).filter((command) => command.depth === 0);
    const safety = [
      ...this.hazards.map((hazard) => `${HAZARD_TEXT[hazard.kind]}: ${hazard.text.slice(0, 80)}`),
      ...this.all.flatMap((command) => command.safety),
      ...secretExpansions(source),
    ];
    const targets = this.all.flatMap((command) => command.targets);
    // `xargs` reads its arguments from input, which the line's other commands
    // make (`echo ~/.ssh/id_rsa | xargs cat`): any word they were given may be one.
    const fedReads = this.all.some((command) => command.wrapper === 'xargs') ? this.operands : [];
    return {
      source,
      parts,
      all: this.all,
      hazards: this.hazards,
      safety: [...new Set(safety)],
      readOnly:
        safety.length === 0 &&
        targets.length === 0 &&
        this.all.every((command) => command.readsOnly),
      targets,
      reads: [...this.all.flatMap((command) => command.reads), ...fedReads],
      directories: this.directories,
    };
  }

  private script(parsed: ParsedScript, depth: number, nesting: number): AnalysedCommand[] {
    this.hazards.push(...parsed.hazards);
    return parsed.commands.map((simple) =>
      this.command(
        simple.kind,
        simple.assignments,
        simple.words,
        simple.redirects,
        depth + simple.depth,
        nesting,
      ),
    );
  }

  private command(
    kind: CommandKind,
    assignments: Assignment[],
    words: Word[],
    redirects: Redirect[],
    depth: number,
    nesting: number,
    fed?: Word[],
  ): AnalysedCommand {
    const name = words[0]?.value ?? '';
    const program = kind === 'command' ? knownProgram(name) : name;
    const args = words.slice(1);
    const unwrapped = kind === 'command' ? unwrap(program, args) : undefined;
    const inner: AnalysedCommand[] = [];
    const feeds =
      unwrapped?.kind === 'xargs' || unwrapped?.kind === 'find'
        ? feedTargets(unwrapped.kind, args)
        : undefined;
    for (const invocation of unwrapped?.commands ?? []) {
      inner.push(
        this.command(
          'command',
          invocation.assignments,
          invocation.words,
          [],
          depth + 1,
          nesting,
          feeds,
        ),
      );
    }
    for (const script of unwrapped?.scripts ?? []) {
      const parsed = nesting < NESTED_SCRIPT_LIMIT ? this.parse(script) : undefined;
      if (parsed === undefined) this.hazards.push({ kind: 'unsupported-syntax', text: script });
      else inner.push(...this.script(parsed, depth + 1, nesting + 1));
    }
    const cdIndex = this.directories.length;
    if (fed === undefined) {
      for (const word of args) {
        if (word.value.startsWith('-') || word.value === '') continue;
        this.operands.push({
          word,
          recursive: false,
          contents: true,
          outsideMatters: false,
          cdIndex,
        });
      }
    }
    const own = kind === 'command' ? programTargets(program, args) : [];
    const targets = [
      ...(fed === undefined ? own : withFedArguments(program, args, own, fed)),
      ...redirectTargets(redirects),
    ].map((target) => ({ ...target, cdIndex }));
    if (program === 'cd' || program === 'pushd' || program === 'popd') {
      this.directories.push(changedDirectory(program, args));
    }
    const envTokens = assignments
      .filter((assignment) => !isSafeVariable(assignment.name))
      .map(assignmentText);
    const tokens = [...envTokens, ...words.map((word) => word.text)];
    const nameWord = words[0];
    const globName = kind === 'command' && nameWord !== undefined && nameWord.glob;
    const testRedirects = kind === 'test' && testWritesFile(words);
    if (testRedirects) {
      targets.push({ word: UNKNOWN_ARGUMENT, kind: 'write', via: 'redirect', cdIndex });
    }
    const programReadsOnly =
      (kind === 'command' && words.length === 0) ||
      (kind === 'assignment' &&
        assignments.every((assignment) => leavesProgramsAlone(assignment.name))) ||
      (kind === 'test' && !testRedirects) ||
      (kind === 'declaration' && isReadOnlyDeclaration(name, args)) ||
      (kind === 'command' &&
        !globName &&
        assignments.every((assignment) => isSafeVariable(assignment.name)) &&
        isReadOnlyProgram(program, args));
    const analysed: AnalysedCommand = {
      kind,
      depth,
      program,
      args,
      assignments,
      text: tokens.join(' '),
      tokens,
      envTokens: envTokens.length,
      matchTexts: matchTexts(assignments, words),
      wrapper: unwrapped?.kind,
      inner,
      readsOnly: programReadsOnly && innerReadsOnly(unwrapped?.kind, inner),
      programReadsOnly,
      filesystem: kind === 'command' && isFilesystemCommand(program, args),
      targets,
      programGlob: globName ? name : undefined,
      reads: commandReads(kind, program, args, redirects, programReadsOnly, fed).map((read) => ({
        ...read,
        cdIndex,
      })),
      safety: [
        ...commandSafety(kind === 'command' ? programBaseName(name) : name, args, assignments),
        ...(globName ? [`the program name ${name} is a pattern that may run any program`] : []),
        ...(unwrapped?.kind === 'opaque' ? [`${program} runs code that cannot be analysed`] : []),
      ],
    };
    this.all.push(analysed);
    return analysed;
  }
}

const UNKNOWN_ARGUMENT = UNKNOWN_WORD;

/**
 * What a command run by `xargs` or `find -exec` gets as extra arguments:
 * for `find`, paths under its start points (the `{}`); for `xargs`, words
 * read from input, which could be any path.
 */
function feedTargets(kind: 'xargs' | 'find', args: readonly Word[]): Word[] {
  if (kind === 'xargs') return [UNKNOWN_ARGUMENT];
  const starts: Word[] = [];
  for (const arg of args) {
    if (/^[-(!]/.test(arg.value)) break;
    starts.push(arg);
  }
  return starts.length === 0
    ? [{ ...UNKNOWN_ARGUMENT, value: '.', text: '.', dynamic: false, literalPrefix: '.' }]
    : starts;
}

/** The targets of a fed command: `{}` stands for the fed paths, and a file-system command also gets them appended. */
function withFedArguments(
  program: string,
  args: readonly Word[],
  own: readonly TargetWord[],
  fed: readonly Word[],
): TargetWord[] {
  const kept = own.filter((target) => !target.word.value.includes('{}'));
  const placeholder = own.find((target) => target.word.value.includes('{}'));
  const kind =
    placeholder?.kind ??
    (program === 'rm' || program === 'rmdir' || program === 'unlink' ? 'remove' : 'write');
  // rm -rf of what find or xargs hands it: the paths are known only when it runs.
  const forced = own.some((target) => target.forced === true);
  const extra =
    placeholder !== undefined || isFilesystemCommand(program, args)
      ? fed.map((word) => ({
          word,
          kind,
          via: 'argument' as const,
          contents: true,
          ...(forced ? { forced } : {}),
        }))
      : [];
  return [...kept, ...extra];
}

/**
 * Whether a `[ … ]` test holds an unquoted `<` or `>`: bash takes it as a
 * redirection (`[ a > b ]` creates `b`), not as the comparison `[[ … ]]` makes.
 */
function testWritesFile(words: readonly Word[]): boolean {
  return words[0]?.value === '[' && words.slice(1).some((word) => /[<>]/.test(word.text));
}

/** Whether the commands a wrapper runs only read (`xargs`/`find` feed them unknown arguments). */
function innerReadsOnly(
  wrapper: WrapperKind | undefined,
  inner: readonly AnalysedCommand[],
): boolean {
  switch (wrapper) {
    case undefined:
      return true;
    case 'transparent':
      return inner.every((command) => command.readsOnly);
    case 'xargs':
    case 'find':
      return inner.every(
        (command) => command.readsOnly && READ_ONLY_WITH_ANY_ARGUMENTS.has(command.program),
      );
    default:
      return false;
  }
}

function assignmentText(assignment: Assignment): string {
  return `${assignment.name}=${assignment.value?.text ?? ''}`;
}

/** The words of a command as rules see them, after the given assignments. */
function canonicalText(assignments: readonly Assignment[], words: readonly Word[]): string {
  return [...assignments.map(assignmentText), ...words.map((word) => word.text)].join(' ');
}

function matchTexts(assignments: readonly Assignment[], words: readonly Word[]): string[] {
  const texts = [canonicalText(assignments, words), canonicalText([], words)];
  const first = words[0];
  if (first !== undefined && first.value.includes('/')) {
    texts.push(
      canonicalText([], [{ ...first, text: programBaseName(first.value) }, ...words.slice(1)]),
    );
  }
  return [...new Set(texts)];
}
