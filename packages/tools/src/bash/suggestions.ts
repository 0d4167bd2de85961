import type { PermissionRule } from '@parley/core';
import type { AnalysedCommand } from './analysis.js';
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
  const prefix = [...command.tokens.slice(0, command.envTokens), words[0] ?? ''];
  for (const word of words.slice(1)) {
    prefix.push(word);
    if (!word.startsWith('-')) break;
  }
  return {
    toolName: 'Bash',
    ruleContent: `${escapeRuleText(prefix.join(' '))}:*`,
    behavior: 'allow',
    source: 'suggested',
  };
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
