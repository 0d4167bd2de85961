import { InvalidAuditRecordError } from './store-errors.js';
import { hasLoneSurrogate } from '../message/index.js';

/**
 * Every decision the audit trail knows, in the order a tool call usually
 * meets them. Kept as a value so stores and validators share one list.
 */
export const AUDIT_DECISIONS = [
  'asked',
  'confirmed',
  'denied',
  'input_edited',
  'rule_added',
  'rule_revoked',
  'allowed_by_rule',
  'denied_by_rule',
  'denied_by_mode',
  'allowed_by_mode',
  'expired',
  'interrupted',
  'executed',
] as const;

/**
 * What happened to a tool call: asked a person, a person confirmed or
 * denied it (or edited its input, or added a rule, or later revoked it), a rule or the mode
 * decided without asking, the question expired or was interrupted, or the
 * tool ran.
 */
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

/**
 * One append-only line of the audit trail: who decided what about which
 * tool call, and when. Stores write a save's records in the same
 * transaction as the state they describe, so the trail never claims a
 * decision the state does not reflect, nor the reverse.
 *
 * `inputDigest` is the SHA-256 (lower-case hex) of the tool input JSON
 * (see `digestToolInput`), so the trail can prove which input was approved
 * without keeping it. `approver` is the person (or `null` when a rule, the
 * mode or the runtime decided). `at` is `Date.prototype.toISOString()`
 * output (UTC, milliseconds). `detail` is plain JSON: a reason, the input
 * before and after an edit, the rule that was added or matched.
 */
export type AuditRecord = {
  sessionId: string;
  replyId: string;
  toolCallId: string;
  toolName: string;
  decision: AuditDecision;
  inputDigest: string;
  approver: string | null;
  at: string;
  detail?: Record<string, unknown>;
};

const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The `inputDigest` of a tool input: SHA-256 in lower-case hex of the raw
 * input JSON text. A string is taken as that text as is (a `ToolCallBlock`'s
 * `input`); any other value is hashed as `JSON.stringify(value)`.
 * Uses the platform's Web Crypto, so core stays free of `node:` imports.
 *
 * @example
 * const inputDigest = await digestToolInput(toolCall.input);
 */
export async function digestToolInput(input: unknown): Promise<string> {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  const bytes = new TextEncoder().encode(text);
  const hash = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** True for one of `AUDIT_DECISIONS`. */
export function isAuditDecision(value: unknown): value is AuditDecision {
  return AUDIT_DECISIONS.some((decision) => decision === value);
}

/** True for a non-null, non-array object (what `detail` must be). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new InvalidAuditRecordError(field, 'must be a non-empty string');
  }
  return value;
}

/**
 * Checks that `value` is a well-formed `AuditRecord` of session `sessionId`
 * and returns a fresh copy of it (`detail` deep-copied through JSON, as a
 * durable store would give it back). Stores call it on every record before
 * writing, so a bad record refuses the whole save; they call it again on
 * what they read back. Throws `InvalidAuditRecordError` naming the field.
 */
export function parseAuditRecord(value: unknown, sessionId: string): AuditRecord {
  if (!isPlainRecord(value)) throw new InvalidAuditRecordError('', 'must be an object');
  const recordSessionId = requireString(value.sessionId, 'sessionId');
  if (recordSessionId !== sessionId) {
    throw new InvalidAuditRecordError(
      'sessionId',
      `is '${recordSessionId}', but the record is saved with session '${sessionId}'`,
    );
  }
  const decision = value.decision;
  if (!isAuditDecision(decision)) {
    throw new InvalidAuditRecordError('decision', `must be one of ${AUDIT_DECISIONS.join(', ')}`);
  }
  const inputDigest = requireString(value.inputDigest, 'inputDigest');
  if (!DIGEST_PATTERN.test(inputDigest)) {
    throw new InvalidAuditRecordError('inputDigest', 'must be 64 lower-case hex digits (SHA-256)');
  }
  const approver = value.approver;
  if (approver !== null && (typeof approver !== 'string' || approver === '')) {
    throw new InvalidAuditRecordError('approver', 'must be a non-empty string or null');
  }
  if (approver !== null && hasLoneSurrogate(approver)) {
    throw new InvalidAuditRecordError('approver', 'must be well-formed Unicode (a lone surrogate)');
  }
  const at = requireString(value.at, 'at');
  if (!ISO_PATTERN.test(at) || new Date(at).toISOString() !== at) {
    throw new InvalidAuditRecordError('at', 'must be an ISO timestamp as toISOString() writes it');
  }
  const record: AuditRecord = {
    sessionId,
    replyId: requireString(value.replyId, 'replyId'),
    toolCallId: requireString(value.toolCallId, 'toolCallId'),
    toolName: requireString(value.toolName, 'toolName'),
    decision,
    inputDigest,
    approver,
    at,
  };
  if (value.detail !== undefined) record.detail = copyDetail(value.detail);
  return record;
}

function copyDetail(detail: unknown): Record<string, unknown> {
  if (!isPlainRecord(detail)) {
    throw new InvalidAuditRecordError('detail', 'must be a plain JSON object');
  }
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(detail));
  } catch (cause) {
    throw new InvalidAuditRecordError('detail', 'must be JSON-serializable', { cause });
  }
  if (!isPlainRecord(copy)) {
    throw new InvalidAuditRecordError('detail', 'must be a plain JSON object');
  }
  return copy;
}
