/**
 * A permission rule. Its shape lives beside the blocks because tool call
 * blocks carry suggested rules; the permission engine gives it meaning.
 * `ruleContent: null` matches every call of `toolName`; otherwise the tool's
 * `matchRule` decides (e.g. `git:*` for Bash, `/project/**` for file tools).
 */
export type PermissionRule = {
  toolName: string;
  ruleContent: string | null;
  behavior: 'allow' | 'deny' | 'ask';
  source: string;
};
