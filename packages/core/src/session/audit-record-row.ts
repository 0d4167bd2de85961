import type { AuditRecord } from './audit-record.js';
import { parseAuditRecord } from './audit-record.js';
import { InvalidAuditRecordError } from './store-errors.js';

/**
 * An `AuditRecord` as SQL stores keep it: one column per field, snake_case,
 * `detail` as JSON text (`null` when absent). Shared so every SQL backend
 * maps records the same way.
 */
export type AuditRecordRow = {
  session_id: string;
  reply_id: string;
  tool_call_id: string;
  tool_name: string;
  decision: string;
  input_digest: string;
  approver: string | null;
  at: string;
  detail: string | null;
};

/** The row to insert for a (validated) audit record. */
export function toAuditRecordRow(record: AuditRecord): AuditRecordRow {
  return {
    session_id: record.sessionId,
    reply_id: record.replyId,
    tool_call_id: record.toolCallId,
    tool_name: record.toolName,
    decision: record.decision,
    input_digest: record.inputDigest,
    approver: record.approver,
    at: record.at,
    detail: record.detail === undefined ? null : JSON.stringify(record.detail),
  };
}

/**
 * The audit record a row read back for session `sessionId` holds, checked
 * like a new one; a row that does not hold one (edited by hand, say) is
 * refused with `InvalidAuditRecordError`.
 */
export function fromAuditRecordRow(row: AuditRecordRow, sessionId: string): AuditRecord {
  let detail: unknown;
  try {
    detail = row.detail === null ? undefined : JSON.parse(row.detail);
  } catch (cause) {
    throw new InvalidAuditRecordError('detail', 'is stored as text that is not JSON', { cause });
  }
  return parseAuditRecord(
    {
      sessionId: row.session_id,
      replyId: row.reply_id,
      toolCallId: row.tool_call_id,
      toolName: row.tool_name,
      decision: row.decision,
      inputDigest: row.input_digest,
      approver: row.approver,
      at: row.at,
      detail,
    },
    sessionId,
  );
}
