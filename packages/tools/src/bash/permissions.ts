import path from 'node:path';
import { permissionMessages } from '@parley/core';
import type { PermissionContext, PermissionDecision, PermissionRule } from '@parley/core';
import { isHarmlessSink } from '../shared/dangerous-paths.js';
import { isEditMode } from '../shared/file-permissions.js';
import { escapeGlob, matchesFileRule } from '../shared/glob-rule.js';
import { isInWorkingDirectory, workingDirectories } from '../shared/paths.js';
import { outsideReadReason } from '../shared/read-access.js';
import type { AnalysedCommand, CommandAnalysis } from './analysis.js';
import { coverage, modeUsed, rulesUsed, uncoveredCommands, type Cover } from './coverage.js';
import {
  readOnlyLineDecision,
  readRuleMatching,
  readSafety,
  uncoveredReads,
  type BashReads,
} from './read-paths.js';
import { bashRuleMatches } from './rules.js';
import { MAX_SUGGESTIONS, prefixRules } from './suggestions.js';
import {
  resolveTargets,
  segmentGlobMatches,
  targetSafety,
  type ResolvedPath,
  type ResolvedTarget,
  type ShellLocation,
} from './target-paths.js';

const TOOL = 'Bash';
/** The file tool whose deny and ask rules also govern the paths a command reads. */
const READ_TOOL = 'Read';
/** The file tools whose rules also govern files a command writes through a redirection. */
const FILE_WRITE_TOOLS = new Set(['Write', 'Edit']);

/**
 * Bash's own permission check (SPEC sections 6 and 7), on an analysed line:
 * 1. a deny rule matching ANY command that may run denies (`rm:*` denies
 *    `ls; rm x`, `sudo rm x`, `find -exec rm`, `bash -c 'rm x'`), and so does
 *    a Write/Edit deny rule on any path the line writes and a Read deny rule
 *    on any path it reads (a read path not known asks);
 * 2. an ask rule matching any of them (or a Read ask rule any path read) asks, marked bypass-immune so that no
 *    allow rule can clear it (the engine already gave ask rules precedence
 *    over allow rules when one matched the whole line);
 * 3. hazards, dangerous commands, dangerous targets and secret reads are safety asks;
 * 4. a read-only line is allowed, unless it reads outside the working
 *    directories where no `Read` rule allows it (`reads`, see `judgeBashReads`);
 * 5. allowed when every sub-command is (rules, reads, edit modes) and every
 *    path written is granted: one named as an argument must be inside a
 *    working directory; one written by a redirection is a file write, granted
 *    by the edit mode inside a working directory or by a Write/Edit allow rule;
 * 6. otherwise an ask, with suggestions that together allow this very call.
 */
export function decideBash(
  analysis: CommandAnalysis,
  context: PermissionContext,
  location: ShellLocation,
  reads: BashReads,
): PermissionDecision {
  const resolved = resolveTargets(analysis, location);
  const deny =
    ruleMatchingAny(context.denyRules, analysis) ??
    fileRuleMatchingAny(context.denyRules, resolved, location.cwd);
  const byReadRule =
    deny === undefined ? readRuleDecision(reads, context, location.cwd) : undefined;
  if (byReadRule?.behavior === 'deny') return byReadRule;
  if (deny !== undefined) {
    return {
      behavior: 'deny',
      message: permissionMessages.denyRule(TOOL),
      decisionReason: permissionMessages.ruleReason(deny.ruleContent, deny.toolName),
      matchedRule: deny,
    };
  }
  const ask =
    ruleMatchingAny(context.askRules, analysis) ??
    fileRuleMatchingAny(context.askRules, resolved, location.cwd);
  if (ask === undefined && byReadRule !== undefined) return byReadRule;
  const asked = ask;
  if (asked !== undefined) {
    return {
      behavior: 'ask',
      message: permissionMessages.ask(TOOL),
      decisionReason: permissionMessages.ruleReason(asked.ruleContent, asked.toolName),
      matchedRule: asked,
      bypassImmune: true,
    };
  }
  const directories = workingDirectories(context, location.cwd);
  const safety = [
    ...analysis.safety,
    ...targetSafety(resolved, directories, location.home),
    ...readSafety(reads),
  ];
  if (safety.length > 0) {
    return {
      behavior: 'ask',
      message: permissionMessages.ask(TOOL),
      decisionReason: `Safety: ${safety.join('; ')}`,
      bypassImmune: true,
    };
  }
  if (analysis.readOnly) return readOnlyLineDecision(reads, context, location.cwd);
  const covered = coverage(analysis, context.allowRules, context.mode);
  const writes = grants(resolved, directories, context, location.cwd);
  const readsOutside = uncoveredReads(reads, context.allowRules, location.cwd);
  if (
    covered.uncovered.length === 0 &&
    writes.outside.length === 0 &&
    writes.pending.length === 0 &&
    readsOutside.length === 0
  ) {
    return allowed(covered.covers, context);
  }
  const reasons = [
    ...(covered.uncovered.length > 0
      ? [`Not allowed by a rule: ${covered.uncovered.map((part) => part.text).join('; ')}`]
      : []),
    ...(writes.outside.length > 0
      ? [`Changes paths outside the working directories: ${writes.outside.join(', ')}`]
      : []),
    ...(writes.pending.length > 0
      ? [`Writes files: ${writes.pending.map((item) => item.real).join(', ')}`]
      : []),
    ...(readsOutside.length > 0 ? [outsideReadReason(readsOutside.map((read) => read.shown))] : []),
  ];
  return {
    behavior: 'ask',
    message: permissionMessages.ask(TOOL),
    decisionReason: reasons.join('; '),
    suggestedRules:
      writes.outside.length > 0 || readsOutside.length > 0
        ? []
        : suggest(analysis, resolved, context, location),
  };
}

/**
 * What `Read` deny and ask rules say about the paths a line reads (the
 * rules of the Read tool govern every read, as Write/Edit rules govern
 * writes): a deny when a deny rule matches a path read, an ask (no rule or
 * mode clears it) when an ask rule does or when a path read cannot be known
 * while such rules exist; undefined when none applies.
 */
export function readRuleDecision(
  reads: BashReads,
  context: PermissionContext,
  cwd: string,
): PermissionDecision | undefined {
  const denied = readRuleMatching(context.denyRules, reads, cwd);
  if (denied !== undefined && !denied.unknown) {
    return {
      behavior: 'deny',
      message: permissionMessages.denyRule(TOOL),
      decisionReason: permissionMessages.ruleReason(denied.rule.ruleContent, READ_TOOL),
      matchedRule: denied.rule,
    };
  }
  const asked = readRuleMatching(context.askRules, reads, cwd) ?? denied;
  if (asked === undefined) return undefined;
  return {
    behavior: 'ask',
    message: permissionMessages.ask(TOOL),
    decisionReason: `${permissionMessages.ruleReason(asked.rule.ruleContent, READ_TOOL)}${asked.unknown ? ' (the line reads a path not known before it runs)' : ''}`,
    matchedRule: asked.rule,
    bypassImmune: true,
  };
}

/** The first Bash rule that matches any command of the line, by any of its match texts. */
export function ruleMatchingAny(
  rules: readonly PermissionRule[],
  analysis: CommandAnalysis,
): PermissionRule | undefined {
  return rules.find(
    (rule) =>
      rule.toolName === TOOL &&
      (rule.ruleContent === null ||
        analysis.all.some(
          (command) =>
            command.matchTexts.some((text) => bashRuleMatches(rule.ruleContent ?? '', text)) ||
            globProgramMatches(rule.ruleContent ?? '', command),
        )),
  );
}

/**
 * Whether a command whose program name is a glob (`/bin/r? -rf ~`) may be
 * one the rule names: the rule's program is tried in its place when the
 * glob's last segment could match it (`r?` matches `rm`).
 */
function globProgramMatches(ruleContent: string, command: AnalysedCommand): boolean {
  const glob = command.programGlob;
  if (glob === undefined) return false;
  const ruleProgram = (/^[^\s:*]+/.exec(ruleContent.trim()) ?? [''])[0];
  if (
    ruleProgram === '' ||
    !segmentGlobMatches(path.posix.basename(glob), path.posix.basename(ruleProgram))
  )
    return false;
  const text = [ruleProgram, ...command.tokens.slice(command.envTokens + 1)].join(' ');
  return bashRuleMatches(ruleContent, text);
}

/** The first Write/Edit rule that matches a path the line writes. */
function fileRuleMatchingAny(
  rules: readonly PermissionRule[],
  resolved: readonly ResolvedTarget[],
  cwd: string,
): PermissionRule | undefined {
  const paths = resolved.flatMap((item) => item.paths ?? []);
  return rules.find(
    (rule) =>
      FILE_WRITE_TOOLS.has(rule.toolName) && paths.some((item) => fileRuleMatches(rule, item, cwd)),
  );
}

function fileRuleMatches(rule: PermissionRule, item: ResolvedPath, cwd: string): boolean {
  return rule.ruleContent === null || matchesFileRule(rule.ruleContent, item.real, cwd);
}

/**
 * Which written paths are not granted: `outside` (arguments outside every
 * working directory, or paths that cannot be known; no rule can grant them)
 * and `pending` (redirection targets waiting for the edit mode or a Write rule).
 */
function grants(
  resolved: readonly ResolvedTarget[],
  directories: readonly string[],
  context: PermissionContext,
  cwd: string,
): { outside: string[]; pending: ResolvedPath[] } {
  const outside: string[] = [];
  const pending: ResolvedPath[] = [];
  const fileRules = context.allowRules.filter((rule) => FILE_WRITE_TOOLS.has(rule.toolName));
  for (const { target, paths } of resolved) {
    if (paths === undefined) {
      outside.push(`${target.word.text || 'an argument read from input'} (unknown path)`);
      continue;
    }
    for (const item of paths) {
      if (isHarmlessSink(item.absolute)) continue;
      const inside = isInWorkingDirectory(directories, item.real);
      if (target.via === 'argument') {
        if (!inside) outside.push(item.real);
      } else if (
        !(isEditMode(context.mode) && inside) &&
        !fileRules.some((rule) => fileRuleMatches(rule, item, cwd))
      ) {
        pending.push(item);
      }
    }
  }
  return { outside, pending };
}

function allowed(covers: readonly Cover[], context: PermissionContext): PermissionDecision {
  const rules = rulesUsed(covers);
  const contents = [...new Set(rules.map((rule) => rule.ruleContent ?? TOOL))];
  const reasons = [
    ...(contents.length > 0 ? [permissionMessages.ruleReason(contents.join(', '), TOOL)] : []),
    ...(modeUsed(covers)
      ? [`mode: ${context.mode} (every path changed is inside a working directory)`]
      : []),
  ];
  const first = rules[0];
  return {
    behavior: 'allow',
    message:
      rules.length === 0 && isEditMode(context.mode)
        ? `Permission granted for ${TOOL} (${context.mode} mode)`
        : permissionMessages.allowRule(TOOL),
    decisionReason: reasons.join('; ') || 'every path written is granted',
    ...(first === undefined ? {} : { matchedRule: first }),
  };
}

/**
 * Suggestions: a Bash prefix rule per sub-command not yet allowed, and a
 * Write rule `{dir}/**` per directory written through a redirection. Kept
 * only if adding them allows the whole call (the SPEC's "Parley adds"
 * promise, checked here so the engine's own filter rarely has to drop a set).
 */
function suggest(
  analysis: CommandAnalysis,
  resolved: readonly ResolvedTarget[],
  context: PermissionContext,
  location: ShellLocation,
): PermissionRule[] {
  const missing = analysis.parts.flatMap((part) =>
    uncoveredCommands(part, context.allowRules, context.mode),
  );
  const commandRules = prefixRules(missing);
  if (missing.length > 0 && commandRules.length === 0) return [];
  const directories = workingDirectories(context, location.cwd);
  const pending = grants(resolved, directories, context, location.cwd).pending;
  // A rule for writing outside the working directories is not offered; the user may still write one.
  if (pending.some((item) => !isInWorkingDirectory(directories, item.real))) return [];
  const writeRules = [...new Set(pending.map((item) => path.dirname(item.real)))].map(
    (directory): PermissionRule => ({
      toolName: 'Write',
      ruleContent: `${directory === '/' ? '' : escapeGlob(directory)}/**`,
      behavior: 'allow',
      source: 'suggested',
    }),
  );
  const suggested = [...commandRules, ...writeRules];
  if (suggested.length === 0 || suggested.length > MAX_SUGGESTIONS) return [];
  const trial = { ...context, allowRules: [...context.allowRules, ...suggested] };
  const after = grants(resolved, directories, trial, location.cwd);
  const clears =
    coverage(analysis, trial.allowRules, context.mode).uncovered.length === 0 &&
    after.outside.length === 0 &&
    after.pending.length === 0;
  return clears ? suggested : [];
}
