import type { AuditRecordRow, MessageRow } from '@parley/core';

/** The quoted names of the store's tables. */
export type SaveTables = { sessions: string; messages: string; audit: string };

/**
 * What one save writes. `expectedVersion` 0 creates the session; any other
 * value updates it if it still has that version. `state` is the head (the
 * state without its messages), `messageCount` how many messages it has,
 * `rows` the message rows that are new or changed, `trim` whether rows at
 * `messageCount` and beyond must go. `payload` is the NOTIFY
 * payload of the version the save makes. `relaxed`: commit without waiting
 * for the WAL flush; the next strict commit flushes it along (the WAL is
 * one sequence).
 */
export type SaveWrite = {
  sessionId: string;
  state: string;
  messageCount: number;
  rows: readonly MessageRow[];
  trim: boolean;
  deadline: string | null;
  leaseUntil: string | null;
  expectedVersion: number;
  records: readonly AuditRecordRow[];
  channel: string;
  payload: string;
  relaxed: boolean;
};

/** A parameterised statement, as `pg` takes it. */
export type SqlStatement = { text: string; values: unknown[] };

const AUDIT_COLUMNS =
  'session_id, reply_id, tool_call_id, tool_name, decision, input_digest, approver, at, detail';

/**
 * The whole save as one statement (Postgres runs it atomically, in one
 * round trip): the version-checked write of the session's head row
 * `RETURNING` its new version; only if that write returned a row, the
 * message rows upserted (as arrays, one parameter each), the rows past the
 * new count deleted, and the audit records inserted in the order given;
 * and the NOTIFY selected from the same row. It
 * returns one row, `{ version }`, or none when the version check failed
 * (and then writes nothing).
 */
export function saveStatement(tables: SaveTables, write: SaveWrite): SqlStatement {
  const values: unknown[] = [];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const id = parameter(write.sessionId);
  const state = parameter(write.state);
  const deadline = parameter(write.deadline);
  const lease = parameter(write.leaseUntil);
  const count = parameter(write.messageCount);
  const written =
    write.expectedVersion === 0
      ? `INSERT INTO ${tables.sessions} (id, version, state, deadline, lease_until, message_count)
         VALUES (${id}, 1, ${state}, ${deadline}, ${lease}::timestamptz, ${count}::integer)
         ON CONFLICT (id) DO NOTHING RETURNING version`
      : `UPDATE ${tables.sessions}
         SET state = ${state}, version = version + 1, updated_at = now(), deadline = ${deadline},
           lease_until = ${lease}::timestamptz, message_count = ${count}::integer
         WHERE id = ${id} AND version = ${parameter(write.expectedVersion)} RETURNING version`;
  const messages =
    write.rows.length === 0
      ? ''
      : `, messages AS (
         INSERT INTO ${tables.messages} (session_id, position, written_version, digest, message)
         SELECT ${id}, row.position, written.version, row.digest, row.message
         FROM written, unnest(${parameter(write.rows.map((row) => row.position))}::integer[],
           ${parameter(write.rows.map((row) => row.digest))}::text[],
           ${parameter(write.rows.map((row) => row.text))}::text[]) AS row(position, digest, message)
         ON CONFLICT (session_id, position) DO UPDATE SET written_version = EXCLUDED.written_version,
           digest = EXCLUDED.digest, message = EXCLUDED.message
       )`;
  // Disjoint from the upserted rows (positions below the count), so one statement may do both.
  const trimmed = write.trim
    ? `, trimmed AS (
         DELETE FROM ${tables.messages} WHERE session_id = ${id} AND position >= ${count}::integer
           AND EXISTS (SELECT 1 FROM written)
       )`
    : '';
  const audited =
    write.records.length === 0
      ? ''
      : `, audited AS (
         INSERT INTO ${tables.audit} (${AUDIT_COLUMNS})
         SELECT ${AUDIT_COLUMNS} FROM written,
           ROWS FROM (jsonb_to_recordset(${parameter(JSON.stringify(write.records))}::jsonb) AS (
             session_id text, reply_id text, tool_call_id text, tool_name text, decision text,
             input_digest text, approver text, at timestamptz, detail text
           )) WITH ORDINALITY AS record
         ORDER BY record.ordinality
       )`;
  const notify = `pg_notify(${parameter(write.channel)}, ${parameter(write.payload)})`;
  // set_config(..., true) is SET LOCAL: it lasts until this statement's own commit.
  const relax = write.relaxed ? ", set_config('synchronous_commit', 'off', true)" : '';
  const text = `WITH written AS (${written})${messages}${trimmed}${audited}
    SELECT version, ${notify}${relax} FROM written`;
  return { text, values };
}
