import type { PermissionMode, PermissionRule } from '@parley/core';
import { isEditMode } from '../shared/file-permissions.js';
import type { AnalysedCommand, CommandAnalysis } from './analysis.js';
import { READ_ONLY_WITH_ANY_ARGUMENTS } from './read-only.js';
import { bashRuleMatches } from './rules.js';

/** How one sub-command is allowed: it only reads, an allow rule names it, or the edit mode covers it. */
export type Cover =
  | { by: 'read' }
  | { by: 'rule'; rule: PermissionRule }
  | { by: 'mode' }
  | { by: 'wrapped'; inner: Cover[] };

/** Which sub-commands are allowed and how; `uncovered` lists the ones that are not. */
export type Coverage = { covers: Cover[]; uncovered: AnalysedCommand[] };

/** What feeds a command extra arguments: `xargs` (unknown words) or `find -exec` (found paths). */
type Feeder = 'xargs' | 'find' | undefined;

/**
 * Decides for each sub-command of the line whether the command itself is
 * allowed (SPEC section 7: a compound command is allowed by rules only if
 * every sub-command is): it only reads and names no path it changes; some
 * Bash allow rule matches its text; or, in `accept_edits`/`dont_ask`, it is
 * a file-system command. A wrapper that is itself harmless (`time`,
 * `timeout`, `xargs`, `find -exec`) is allowed when every command it runs is.
 * The paths written are granted separately (see `permissions.ts`).
 */
export function coverage(
  analysis: CommandAnalysis,
  allowRules: readonly PermissionRule[],
  mode: PermissionMode,
): Coverage {
  const rules = bashAllowRules(allowRules);
  const covers: Cover[] = [];
  const uncovered: AnalysedCommand[] = [];
  for (const part of analysis.parts) {
    const cover = coverCommand(part, rules, isEditMode(mode), undefined);
    if (cover === undefined) uncovered.push(part);
    else covers.push(cover);
  }
  return { covers, uncovered };
}

/** The sub-commands (inside harmless wrappers, the inner commands) that nothing allows. */
export function uncoveredCommands(
  command: AnalysedCommand,
  allowRules: readonly PermissionRule[],
  mode: PermissionMode,
  feeder: Feeder = undefined,
): AnalysedCommand[] {
  if (coverCommand(command, bashAllowRules(allowRules), isEditMode(mode), feeder) !== undefined)
    return [];
  if (!isHarmlessWrapper(command)) return [command];
  return command.inner.flatMap((inner) =>
    uncoveredCommands(inner, allowRules, mode, feederOf(command)),
  );
}

/** The rules that took part in allowing, for the decision's reason. */
export function rulesUsed(covers: readonly Cover[]): PermissionRule[] {
  return covers.flatMap((cover) => {
    if (cover.by === 'rule') return [cover.rule];
    if (cover.by === 'wrapped') return rulesUsed(cover.inner);
    return [];
  });
}

/** Whether the edit mode took part in allowing. */
export function modeUsed(covers: readonly Cover[]): boolean {
  return covers.some(
    (cover) => cover.by === 'mode' || (cover.by === 'wrapped' && modeUsed(cover.inner)),
  );
}

function bashAllowRules(rules: readonly PermissionRule[]): PermissionRule[] {
  return rules.filter((rule) => rule.toolName === 'Bash' && rule.behavior === 'allow');
}

function coverCommand(
  command: AnalysedCommand,
  rules: readonly PermissionRule[],
  editMode: boolean,
  feeder: Feeder,
): Cover | undefined {
  // Words read by xargs can be any option (`-c core.pager=…`), so no rule can vouch for them.
  if (feeder !== 'xargs') {
    const rule = rules.find(
      (candidate) =>
        candidate.ruleContent === null || bashRuleMatches(candidate.ruleContent, command.text),
    );
    if (rule !== undefined) return { by: 'rule', rule };
  }
  const anyArguments = feeder === undefined || READ_ONLY_WITH_ANY_ARGUMENTS.has(command.program);
  if (
    command.readsOnly &&
    anyArguments &&
    command.targets.every((target) => target.via === 'redirect')
  ) {
    return { by: 'read' };
  }
  if (isHarmlessWrapper(command)) {
    const inner = command.inner.map((item) =>
      coverCommand(item, rules, editMode, feederOf(command)),
    );
    const all = inner.filter((cover) => cover !== undefined);
    return all.length === inner.length ? { by: 'wrapped', inner: all } : undefined;
  }
  if (editMode && command.wrapper === undefined && command.filesystem) return { by: 'mode' };
  return undefined;
}

/** A wrapper that does nothing itself but run its inner commands. */
function isHarmlessWrapper(command: AnalysedCommand): boolean {
  const kind = command.wrapper;
  const runsOthers = kind === 'transparent' || kind === 'xargs' || kind === 'find';
  return runsOthers && command.programReadsOnly && command.inner.length > 0;
}

function feederOf(command: AnalysedCommand): Feeder {
  return command.wrapper === 'xargs' || command.wrapper === 'find' ? command.wrapper : undefined;
}
