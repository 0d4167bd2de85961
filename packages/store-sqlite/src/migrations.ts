import type { StoreMigration } from '@parley/core';
import { pendingMigrations } from '@parley/core';
import type { Database } from 'better-sqlite3';

/** One schema step of the SQLite store: SQL run once, inside the opening transaction. */
export type SqliteMigration = StoreMigration & { sql: string };

/**
 * The SQLite store's schema, as an ordered list. Append new steps; never
 * edit or renumber one that has shipped (databases record each by version
 * and name, and refuse a list that disagrees).
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'sessions',
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        version INTEGER NOT NULL CHECK (version > 0),
        state TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;`,
  },
  {
    version: 2,
    name: 'audit',
    sql: `
      CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        reply_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        decision TEXT NOT NULL,
        input_digest TEXT NOT NULL,
        approver TEXT,
        at TEXT NOT NULL,
        detail TEXT
      ) STRICT;
      CREATE INDEX audit_session_seq ON audit (session_id, seq);
      CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
      CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;`,
  },
  {
    version: 3,
    name: 'deadline',
    // The parked reply's deadline, kept next to the state so `listDue` reads
    // an index instead of every state. Backfilled from the states that
    // parse; a corrupt one keeps NULL (it never expires until repaired).
    sql: `
      ALTER TABLE sessions ADD COLUMN deadline TEXT;
      UPDATE sessions SET deadline = strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(state, '$.reply.deadline'))
        WHERE json_valid(state) AND json_extract(state, '$.reply.status') = 'parked';
      CREATE INDEX sessions_deadline ON sessions (deadline) WHERE deadline IS NOT NULL;`,
  },
  {
    version: 4,
    name: 'audit rowid',
    // AUTOINCREMENT wrote sqlite_sequence on every audit insert (one more
    // page per commit). The triggers forbid deletes, so the plain rowid
    // (largest + 1) keeps the same order. SQLite's table rebuild: create the
    // new table, copy every row with its seq, drop the old one (its index
    // and triggers go with it), rename, then recreate index and triggers on
    // the renamed table.
    sql: `
      CREATE TABLE audit_rebuilt (
        seq INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        reply_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        decision TEXT NOT NULL,
        input_digest TEXT NOT NULL,
        approver TEXT,
        at TEXT NOT NULL,
        detail TEXT
      ) STRICT;
      INSERT INTO audit_rebuilt (seq, session_id, reply_id, tool_call_id, tool_name, decision,
          input_digest, approver, at, detail)
        SELECT seq, session_id, reply_id, tool_call_id, tool_name, decision,
          input_digest, approver, at, detail
        FROM audit ORDER BY seq;
      DROP TABLE audit;
      ALTER TABLE audit_rebuilt RENAME TO audit;
      DELETE FROM sqlite_sequence WHERE name = 'audit';
      CREATE INDEX audit_session_seq ON audit (session_id, seq);
      CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
      CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;`,
  },
  {
    version: 5,
    name: 'lease',
    // Until when the process running a reply holds the session (NULL when no
    // reply is running, or the store was written before leases).
    sql: `ALTER TABLE sessions ADD COLUMN lease_until TEXT;`,
  },
  {
    version: 6,
    name: 'message rows',
    // A session's messages move to rows of their own, so a save writes only
    // the ones that changed; `sessions.state` keeps the head (the state
    // without its messages) and `message_count` how many there are. A row
    // whose `message_count` is NULL was written before: its `state` is the
    // whole state, loaded as before and moved to rows by its next save (no
    // rewrite of every session here, and a corrupt state stays as it was).
    // `written_version`: the save that wrote the row, so a load that holds
    // an older version reads only the rows written since.
    sql: `
      ALTER TABLE sessions ADD COLUMN message_count INTEGER CHECK (message_count >= 0);
      CREATE TABLE session_messages (
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL CHECK (position >= 0),
        written_version INTEGER NOT NULL,
        digest TEXT NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      ) STRICT;`,
  },
];

/**
 * Brings `database` up to `migrations` in one IMMEDIATE transaction (so two
 * processes opening the same file at once take turns), recording each step
 * in `schema_migrations`. Refuses a database a newer build has migrated.
 */
export function applyMigrations(
  database: Database,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): void {
  // A database already migrated needs no write lock: many processes opening
  // one file at once would otherwise queue on it, one busy wait at a time.
  const applied = appliedMigrations(database);
  if (applied !== undefined && pendingMigrations(migrations, applied).length === 0) return;
  database
    .transaction(() => {
      database.exec(`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          applied_at TEXT NOT NULL
        ) STRICT;`);
      const applied = database
        .prepare<[], StoreMigration>('SELECT version, name FROM schema_migrations ORDER BY version')
        .all();
      const record = database.prepare<[number, string, string]>(
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
      );
      for (const migration of pendingMigrations(migrations, applied)) {
        database.exec(migration.sql);
        record.run(migration.version, migration.name, new Date().toISOString());
      }
    })
    .immediate();
}

/** What `schema_migrations` records, read without a lock; `undefined` before the first migration. */
function appliedMigrations(database: Database): StoreMigration[] | undefined {
  const table = database
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
    )
    .get();
  if (table === undefined) return undefined;
  return database
    .prepare<[], StoreMigration>('SELECT version, name FROM schema_migrations ORDER BY version')
    .all();
}
