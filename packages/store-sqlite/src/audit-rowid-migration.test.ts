import type { AuditRecord } from '@parley/core';
import { toAuditRecordRow } from '@parley/core';
import { freshSessionId, sampleAudit, sampleState } from '@parley/core/conformance';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS, applyMigrations } from './migrations.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { useTemporaryDatabases } from './temporary-databases.js';

const temporaryPath = useTemporaryDatabases();

type AuditSchemaRow = { type: string; name: string; sql: string };

/** Every audit row with its seq, in seq order. */
function auditRows(database: Database.Database): unknown[] {
  return database.prepare('SELECT * FROM audit ORDER BY seq').all();
}

/** The table, index and triggers of `audit`, by name. */
function auditSchema(database: Database.Database): AuditSchemaRow[] {
  return database
    .prepare<[], AuditSchemaRow>(
      "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'audit' ORDER BY name",
    )
    .all();
}

/** A database file migrated to version 3 (audit with AUTOINCREMENT) holding these sessions and records. */
function versionThreeDatabase(
  path: string,
  records: AuditRecord[],
  sessionIds: readonly string[],
): void {
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  applyMigrations(old, SQLITE_MIGRATIONS.slice(0, 3));
  const session = old.prepare(
    "INSERT INTO sessions (id, version, state, updated_at) VALUES (?, ?, ?, 'then')",
  );
  for (const id of sessionIds) session.run(id, 2, JSON.stringify(sampleState(id, 1)));
  const audit = old.prepare(
    `INSERT INTO audit (session_id, reply_id, tool_call_id, tool_name, decision, input_digest,
       approver, at, detail) VALUES (@session_id, @reply_id, @tool_call_id, @tool_name,
       @decision, @input_digest, @approver, @at, @detail)`,
  );
  for (const record of records) audit.run(toAuditRecordRow(record));
  old.close();
}

describe('SqliteSessionStore audit table without AUTOINCREMENT (migration 4)', () => {
  it('keeps every audit record of a version-3 database, in order, and appends after them', async () => {
    const path = temporaryPath();
    const first = freshSessionId('first');
    const second = freshSessionId('second');
    const records = [
      sampleAudit(first, 'asked', { at: '2026-01-01T00:00:00.000Z' }),
      sampleAudit(second, 'asked', { at: '2026-01-01T00:00:01.000Z' }),
      sampleAudit(first, 'confirmed', { at: '2026-01-01T00:00:02.000Z', approver: 'ana' }),
      sampleAudit(second, 'denied', { at: '2026-01-01T00:00:03.000Z' }),
      sampleAudit(first, 'executed', { at: '2026-01-01T00:00:04.000Z' }),
    ];
    versionThreeDatabase(path, records, [first, second]);
    const before = new Database(path);
    const rowsBefore = auditRows(before);
    const sequence = before.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'audit'").get();
    before.close();
    expect(sequence).toStrictEqual({ seq: records.length });

    const store = new SqliteSessionStore({ path });
    const probe = new Database(path);
    try {
      expect(auditRows(probe)).toStrictEqual(rowsBefore);
      expect(await store.listAudit(first)).toStrictEqual(
        records.filter((record) => record.sessionId === first),
      );
      expect(await store.listAudit(second)).toStrictEqual(
        records.filter((record) => record.sessionId === second),
      );

      const later = sampleAudit(second, 'executed', { at: '2026-01-01T00:00:05.000Z' });
      const last = sampleAudit(first, 'asked', { at: '2026-01-01T00:00:06.000Z' });
      expect(await store.save(second, sampleState(second, 2), 2, { audit: [later] })).toBe(3);
      expect(await store.save(first, sampleState(first, 2), 2, { audit: [last] })).toBe(3);
      expect(await store.listAudit(first)).toStrictEqual([
        ...records.filter((record) => record.sessionId === first),
        last,
      ]);
      expect(await store.listAudit(second)).toStrictEqual([
        ...records.filter((record) => record.sessionId === second),
        later,
      ]);
      const seqs = probe
        .prepare<[], { seq: number }>('SELECT seq FROM audit ORDER BY seq')
        .all()
        .map((row) => row.seq);
      expect(seqs).toStrictEqual([1, 2, 3, 4, 5, 6, 7]);

      expect(() => probe.exec("UPDATE audit SET decision = 'confirmed'")).toThrow(/append-only/);
      expect(() => probe.exec('DELETE FROM audit')).toThrow(/append-only/);
      expect(probe.prepare("SELECT * FROM sqlite_sequence WHERE name = 'audit'").all()).toEqual([]);
    } finally {
      probe.close();
      await store.close();
    }
  });

  it('leaves the audit table a plain rowid table with its index and triggers', async () => {
    const path = temporaryPath();
    versionThreeDatabase(path, [], []);
    await new SqliteSessionStore({ path }).close();
    const fresh = temporaryPath();
    await new SqliteSessionStore({ path: fresh }).close();
    for (const file of [path, fresh]) {
      const probe = new Database(file);
      const schema = auditSchema(probe);
      const migrations = probe.prepare('SELECT version, name FROM schema_migrations').all();
      probe.close();
      expect(schema.map(({ type, name }) => ({ type, name }))).toStrictEqual([
        { type: 'table', name: 'audit' },
        { type: 'trigger', name: 'audit_no_delete' },
        { type: 'trigger', name: 'audit_no_update' },
        { type: 'index', name: 'audit_session_seq' },
      ]);
      const table = schema.find((row) => row.type === 'table')?.sql ?? '';
      expect(table).toMatch(/seq INTEGER PRIMARY KEY,/);
      expect(table).not.toMatch(/AUTOINCREMENT/i);
      expect(table).toMatch(/STRICT$/);
      for (const row of schema) expect(row.sql).not.toMatch(/audit_rebuilt/);
      expect(migrations).toContainEqual({ version: 4, name: 'audit rowid' });
    }
  });
});
