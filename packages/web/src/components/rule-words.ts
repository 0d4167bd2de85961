import type { PermissionRule } from '@parley/core';

/**
 * A rule in words: what "Always allow" would add, or what a session's rule
 * does. `Bash` rules match commands (`npm test:*` is any command starting
 * with `npm test`); file tools' rules match paths.
 */
export function ruleInWords(
  rule: Pick<PermissionRule, 'toolName' | 'ruleContent' | 'behavior'>,
): string {
  const verb =
    rule.behavior === 'allow'
      ? 'Always allow'
      : rule.behavior === 'deny'
        ? 'Always deny'
        : 'Always ask before';
  if (rule.ruleContent === null) return `${verb} every ${rule.toolName} call in this session`;
  if (rule.toolName === 'Bash') {
    const prefix = rule.ruleContent.endsWith(':*') ? rule.ruleContent.slice(0, -2) : undefined;
    return prefix === undefined
      ? `${verb} \`${rule.ruleContent}\` in this session`
      : `${verb} commands starting with \`${prefix}\` in this session`;
  }
  return `${verb} ${rule.toolName} on \`${rule.ruleContent}\` in this session`;
}
