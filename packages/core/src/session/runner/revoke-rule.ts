import { FixedRuleError, SessionBusyError, UnknownRuleError } from '../../errors/index.js';
import type { PermissionRule } from '../../message/index.js';
import type { AuditRecord } from '../audit-record.js';
import { digestToolInput } from '../audit-record.js';
import type { SessionStore } from '../session-store.js';

/**
 * Which rule to revoke: a rule is known by its tool, its content and its
 * behaviour (its `source` only says where it came from).
 */
export type RuleToRevoke = Pick<PermissionRule, 'toolName' | 'ruleContent' | 'behavior'>;

/**
 * Removes `rule` from the stored permission context of `sessionId` and
 * writes a `rule_revoked` audit record by `approver` in the same save, with
 * the version just read (a concurrent write makes it fail with
 * `StaleSessionError`, storing nothing). Refuses with `SessionBusyError`
 * while another process's lease on the session lasts, and with
 * `UnknownRuleError` when the session does not hold the rule, and with
 * `FixedRuleError` when `isFixed` says the operator set it. The record
 * names the tool call whose answer added the rule when the trail has one,
 * so a reader sees what is being taken back; a rule that came with the
 * agent's options is recorded against the session itself. Resolves to the
 * record written.
 */
export async function revokeStoredRule(
  store: SessionStore,
  sessionId: string,
  rule: RuleToRevoke,
  approver: string | null,
  now: Date,
  isFixed: (rule: PermissionRule) => boolean,
): Promise<AuditRecord> {
  const stored = await store.load(sessionId);
  if (stored === undefined) throw new UnknownRuleError(sessionId, rule);
  if (stored.leaseUntil !== undefined && Date.parse(stored.leaseUntil) > now.getTime()) {
    throw new SessionBusyError(sessionId, stored.leaseUntil);
  }
  const permission = stored.state.permission;
  const key = listOf(rule.behavior);
  const rules = permission?.[key] ?? [];
  const index = rules.findIndex((held) => sameRule(held, rule));
  if (permission === undefined || index < 0) throw new UnknownRuleError(sessionId, rule);
  const removed = rules[index];
  if (removed !== undefined && isFixed(removed)) throw new FixedRuleError(sessionId, removed);
  const state = {
    ...stored.state,
    permission: { ...permission, [key]: rules.filter((_, at) => at !== index) },
  };
  const added = (await store.listAudit?.(sessionId))
    ?.filter((record) => record.decision === 'rule_added' && sameRule(record.detail?.rule, rule))
    .at(-1);
  const record: AuditRecord = {
    sessionId,
    replyId: added?.replyId ?? stored.state.reply?.replyId ?? sessionId,
    toolCallId: added?.toolCallId ?? 'rule',
    toolName: rule.toolName,
    decision: 'rule_revoked',
    inputDigest: added?.inputDigest ?? (await digestToolInput(rule)),
    approver,
    at: now.toISOString(),
    detail: { rule: { ...rule, source: removed?.source ?? 'unknown' } },
  };
  await store.save(sessionId, state, stored.version, { audit: [record] });
  return record;
}

/** The list of the permission context that holds rules of `behavior`. */
function listOf(behavior: PermissionRule['behavior']): 'allowRules' | 'denyRules' | 'askRules' {
  switch (behavior) {
    case 'allow':
      return 'allowRules';
    case 'deny':
      return 'denyRules';
    case 'ask':
      return 'askRules';
  }
}

/**
 * Whether `rule` is the operator's, which no answer or route may take back:
 * its source is `'policy'` or one of `fixedSources`.
 */
export function operatorRule(rule: PermissionRule, fixedSources: readonly string[]): boolean {
  return rule.source === 'policy' || fixedSources.includes(rule.source);
}

/** True when `held` (a rule, or a record's detail) is the rule `rule` names. */
function sameRule(held: unknown, rule: RuleToRevoke): boolean {
  if (typeof held !== 'object' || held === null) return false;
  return (
    'toolName' in held &&
    held.toolName === rule.toolName &&
    'ruleContent' in held &&
    held.ruleContent === rule.ruleContent &&
    'behavior' in held &&
    held.behavior === rule.behavior
  );
}
