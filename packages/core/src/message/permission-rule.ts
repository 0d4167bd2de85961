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

/** Whether two rules are the same rule: tool, content, behaviour and source. */
export function samePermissionRule(a: PermissionRule, b: PermissionRule): boolean {
  return (
    a.toolName === b.toolName &&
    a.ruleContent === b.ruleContent &&
    a.behavior === b.behavior &&
    a.source === b.source
  );
}

/** A lone surrogate: with the `u` flag, a paired one is a single code point and does not match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Whether `text` holds a lone surrogate, i.e. is not well-formed Unicode.
 * Stores keep UTF-8, where a lone surrogate reads back as U+FFFD: an id
 * holding one would come back as another id.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
