import { statSync } from 'node:fs';
import path from 'node:path';
import { permissionMessages } from '@parley/core';
import type { PermissionContext, PermissionDecision, PermissionRule } from '@parley/core';
import { escapeGlob, matchesFileRule } from '../shared/glob-rule.js';
import { isInside, isInWorkingDirectory, workingDirectories } from '../shared/paths.js';
import { outsideReadReason, secretReadReason } from '../shared/read-access.js';
import {
  displayPath,
  hasSecretContent,
  isSecretPath,
  secretsInside,
} from '../shared/secret-paths.js';
import type { CommandAnalysis, ReadTarget } from './analysis.js';
import { resolveWords, type ShellLocation } from './target-paths.js';
import type { Word } from './syntax.js';

const TOOL = 'Bash';
/** The tool whose rules also allow a command's reads outside the working directories. */
const READ_TOOL = 'Read';
/** At most this many `Read` rules are suggested for one call; more would be no narrow grant. */
const MAX_READ_SUGGESTIONS = 5;

/** A read outside every working directory: as shown, and where it lands (undefined: unknown). */
export type OutsideRead = { shown: string; real: string | undefined; directory: boolean };

/** What a command line reads that needs asking. */
export type BashReads = {
  /** Secrets it may read (`~/.ssh/id_rsa`), by path, content or in a tree it searches. */
  secrets: string[];
  /** Paths an only-reading command reads outside the working directories, or cannot be known. */
  outside: OutsideRead[];
  /** Every path the line may read, as written and real (for `Read` deny and ask rules). */
  paths?: { absolute: string; real: string }[];
  /** Some path it may read is not known before running (`xargs`, `$VAR`). */
  unknown?: boolean;
};

/**
 * Judges every path the line may read (see `commandReads`), resolved like
 * the paths it writes (after its `cd`s, `~`, `$HOME`, globs, symlinks):
 * secrets by name and place, by a private key header in a file, or below a
 * tree whose file contents are read (`grep -r`); and, for commands that only
 * read, paths outside the working directories or not known before running.
 */
export async function judgeBashReads(
  analysis: CommandAnalysis,
  context: PermissionContext,
  location: ShellLocation,
): Promise<BashReads> {
  const directories = workingDirectories(context, location.cwd);
  const secrets: string[] = [];
  const outside: OutsideRead[] = [];
  const all: { absolute: string; real: string }[] = [];
  let unknown = false;
  const items = analysis.reads.map((read) => ({ ...read, word: withHome(read.word) }));
  for (const { item, paths } of resolveWords(items, analysis, location)) {
    if (paths === undefined) unknown = true;
    else all.push(...paths);
    if (paths === undefined) {
      if (item.outsideMatters) {
        const text = item.word.text || 'a path read from input';
        outside.push({ shown: `${text} (unknown path)`, real: undefined, directory: false });
      }
      continue;
    }
    for (const { absolute, real } of paths) {
      secrets.push(...(await secretsRead(item, absolute, real, location.home)));
      if (item.outsideMatters && !isInWorkingDirectory(directories, real)) {
        const directory = item.recursive || isDirectory(real);
        outside.push({ shown: displayPath(real, location.home), real, directory });
      }
    }
  }
  return { secrets: [...new Set(secrets)], outside, paths: all, unknown };
}

/**
 * The first `Read` rule of `rules` (deny or ask rules) that matches a path
 * the line may read, so that `Read(~/private/**)` denies `cat ~/private/x`
 * as it denies the Read tool. With such rules present, a path that cannot
 * be known matches them too (`unknown`), since it may be any file.
 */
export function readRuleMatching(
  rules: readonly PermissionRule[],
  reads: BashReads,
  cwd: string,
): { rule: PermissionRule; unknown: boolean } | undefined {
  const readRules = rules.filter((rule) => rule.toolName === READ_TOOL);
  const paths = reads.paths ?? [];
  const matched = readRules.find(
    (rule) =>
      rule.ruleContent === null ||
      paths.some(
        ({ absolute, real }) =>
          matchesFileRule(rule.ruleContent ?? '', real, cwd) ||
          matchesFileRule(rule.ruleContent ?? '', absolute, cwd),
      ),
  );
  if (matched !== undefined) return { rule: matched, unknown: false };
  const first = readRules[0];
  return reads.unknown === true && first !== undefined ? { rule: first, unknown: true } : undefined;
}

async function secretsRead(
  item: ReadTarget,
  absolute: string,
  real: string,
  home: string,
): Promise<string[]> {
  if (isSecretPath(absolute) || isSecretPath(real)) return [displayPath(absolute, home)];
  if (!item.recursive)
    return item.contents && hasSecretContent(real) ? [displayPath(absolute, home)] : [];
  if (!item.contents) return [];
  return (await secretsInside(real, home)).map((found) => displayPath(found, home));
}

/**
 * Whether every path the line reads is known, inside `location.cwd` and no
 * secret by name: then a rule matching any of its commands may stand for the
 * whole line (see `Bash.matchRule`). Synchronous and without the context, so
 * a read in another working directory counts as outside here.
 */
export function readsStayInside(analysis: CommandAnalysis, location: ShellLocation): boolean {
  const items = analysis.reads.map((read) => ({ ...read, word: withHome(read.word) }));
  return resolveWords(items, analysis, location).every(
    ({ paths }) =>
      paths !== undefined &&
      paths.every(
        ({ absolute, real }) =>
          isInside(location.cwd, real) && !isSecretPath(absolute) && !isSecretPath(real),
      ),
  );
}

/** The safety reasons of the reads: a secret read is a safety ask no rule or mode clears. */
export function readSafety(reads: BashReads): string[] {
  return reads.secrets.length === 0 ? [] : [secretReadReason(reads.secrets)];
}

/** The outside reads no `Read` allow rule covers (an unknown path is never covered). */
export function uncoveredReads(
  reads: BashReads,
  rules: readonly PermissionRule[],
  cwd: string,
): OutsideRead[] {
  const readRules = rules.filter((rule) => rule.toolName === READ_TOOL);
  return reads.outside.filter(
    ({ real }) =>
      real === undefined ||
      !readRules.some(
        (rule) => rule.ruleContent === null || matchesFileRule(rule.ruleContent, real, cwd),
      ),
  );
}

/**
 * The decision for a line that only reads: allowed as read-only when it
 * reads nothing outside the working directories, allowed by `Read` rules
 * that cover every outside read, else an ask with the reason and, when the
 * paths are known, `Read({dir}/**)` for the narrowest directories that clear it.
 */
export function readOnlyLineDecision(
  reads: BashReads,
  context: PermissionContext,
  cwd: string,
): PermissionDecision {
  if (reads.outside.length === 0) {
    return {
      behavior: 'allow',
      message: permissionMessages.readOnly(TOOL),
      decisionReason: 'read-only',
    };
  }
  const uncovered = uncoveredReads(reads, context.allowRules, cwd);
  if (uncovered.length === 0) {
    return {
      behavior: 'allow',
      message: permissionMessages.allowRule(TOOL),
      decisionReason: `read-only; reads outside the working directories allowed by ${READ_TOOL} rules`,
    };
  }
  return {
    behavior: 'ask',
    message: permissionMessages.ask(TOOL),
    decisionReason: outsideReadReason(uncovered.map((read) => read.shown)),
    suggestedRules: suggestReadRules(uncovered, context.allowRules, cwd),
  };
}

/** `Read({dir}/**)` for each directory read or holding a file read, if together they clear every read. */
function suggestReadRules(
  uncovered: readonly OutsideRead[],
  allowRules: readonly PermissionRule[],
  cwd: string,
): PermissionRule[] {
  const directories = new Set<string>();
  for (const { real, directory } of uncovered) {
    if (real === undefined) return [];
    directories.add(directory ? real : path.dirname(real));
  }
  const narrowest = [...directories].filter(
    (candidate) =>
      ![...directories].some((other) => other !== candidate && isInside(other, candidate)),
  );
  if (narrowest.length > MAX_READ_SUGGESTIONS) return [];
  const suggested = narrowest.map((directory): PermissionRule => ({
    toolName: READ_TOOL,
    ruleContent: `${directory === '/' ? '' : escapeGlob(directory)}/**`,
    behavior: 'allow',
    source: 'suggested',
  }));
  const clears =
    uncoveredReads({ secrets: [], outside: [...uncovered] }, [...allowRules, ...suggested], cwd)
      .length === 0;
  return clears ? suggested : [];
}

/**
 * A word starting with `$HOME` or `${HOME}` and nothing else dynamic, as the
 * `~` word it stands for, so `cat $HOME/.ssh/id_rsa` is judged like
 * `cat ~/.ssh/id_rsa`.
 */
function withHome(word: Word): Word {
  if (!word.dynamic) return word;
  const match = /^\$(?:HOME|\{HOME\})(?=\/|$)/.exec(word.value);
  if (match === null) return word;
  const rest = word.value.slice(match[0].length);
  if (/[$`]/.test(rest)) return word;
  const value = `~${rest}`;
  const literalPrefix = word.glob ? `~${word.literalPrefix.slice(match[0].length)}` : value;
  return { ...word, value, text: value, tilde: true, dynamic: false, literalPrefix };
}

/** Whether the path is a directory now. */
function isDirectory(real: string): boolean {
  return statSync(real, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
