/**
 * Whether a rule's `toolName` covers a tool: the same name, or a namespace
 * pattern — a name ending in `__*` covers every tool whose name starts with
 * what comes before the `*` (`mcp__github__*` covers `mcp__github__create_issue`,
 * not `mcp__githubx__a`). Only the `__` separator makes a namespace, so a
 * plain `*` or `Bash*` never matches more than a tool named exactly so.
 */
export function ruleNameMatches(ruleToolName: string, toolName: string): boolean {
  if (ruleToolName === toolName) return true;
  if (!ruleToolName.endsWith('__*')) return false;
  const prefix = ruleToolName.slice(0, -1);
  return prefix.length > 2 && toolName.startsWith(prefix) && toolName.length > prefix.length;
}
