import type { StoreMigration } from '@parley/core';
import { pendingMigrations } from '@parley/core';
import type { Pool } from 'pg';
import { inTransaction } from './transaction.js';

/**
 * One schema step of the Postgres store. `sql` gets the schema name already
 * quoted as an identifier and returns the statements to run.
 */
export type PostgresMigration = StoreMigration & { sql: (schema: string) => string };

/**
 * The Postgres store's schema, as an ordered list. Append new steps; never
 * edit or renumber one that has shipped (databases record each by version
 * and name, and refuse a list that disagrees).
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'sessions',
    sql: (schema) => `
      CREATE TABLE ${schema}.sessions (
        id text PRIMARY KEY,
        version integer NOT NULL CHECK (version > 0),
        state text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    version: 2,
    name: 'audit',
    sql: (schema) => `
      CREATE TABLE ${schema}.audit (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id text NOT NULL,
        reply_id text NOT NULL,
        tool_call_id text NOT NULL,
        tool_name text NOT NULL,
        decision text NOT NULL,
        input_digest text NOT NULL,
        approver text,
        at timestamptz NOT NULL,
        detail text
      );
      CREATE INDEX audit_session_seq ON ${schema}.audit (session_id, seq);
      CREATE FUNCTION ${schema}.audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'audit records are append-only'; END $$;
      CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON ${schema}.audit
        FOR EACH ROW EXECUTE FUNCTION ${schema}.audit_append_only();
      CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON ${schema}.audit
        FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.audit_append_only();`,
  },
  {
    version: 3,
    name: 'deadline',
    // The parked reply's deadline, kept next to the state so `listDue` reads
    // an index instead of every state. Backfilled row by row from the states
    // that parse; a corrupt one keeps NULL (it never expires until repaired).
    // jsonb refuses \u0000, which tool output may hold: it is swapped for
    // \u0001 first (only the deadline and status are read).
    sql: (schema) => `
      ALTER TABLE ${schema}.sessions ADD COLUMN deadline timestamptz;
      DO $$ DECLARE r record; doc jsonb; BEGIN
        FOR r IN SELECT id, state FROM ${schema}.sessions WHERE state LIKE '%"deadline"%' LOOP
          BEGIN
            doc := replace(r.state, '\\u0000', '\\u0001')::jsonb;
            UPDATE ${schema}.sessions SET deadline = (doc #>> '{reply,deadline}')::timestamptz
              WHERE id = r.id AND doc #>> '{reply,status}' = 'parked';
          EXCEPTION WHEN others THEN NULL;
          END;
        END LOOP;
      END $$;
      CREATE INDEX sessions_deadline ON ${schema}.sessions (deadline) WHERE deadline IS NOT NULL;`,
  },
  {
    version: 4,
    name: 'lease',
    // Until when the node running a reply holds the session (NULL when no
    // reply is running, or the row was written before leases).
    sql: (schema) => `ALTER TABLE ${schema}.sessions ADD COLUMN lease_until timestamptz;`,
  },
  {
    version: 5,
    name: 'message rows',
    // A session's messages move to rows of their own, so a save writes only
    // the ones that changed; `sessions.state` keeps the head (the state
    // without its messages) and `message_count` how many there are. A row
    // whose `message_count` is NULL was written before: its `state` is the
    // whole state, loaded as before and moved to rows by its next save (no
    // rewrite of every session under the migration lock, and a corrupt
    // state stays as it was). `written_version`: the save that wrote the
    // row, so a load that holds an older version reads only the rows
    // written since.
    sql: (schema) => `
      ALTER TABLE ${schema}.sessions ADD COLUMN message_count integer
        CHECK (message_count >= 0);
      CREATE TABLE ${schema}.session_messages (
        session_id text NOT NULL,
        position integer NOT NULL CHECK (position >= 0),
        written_version integer NOT NULL,
        digest text NOT NULL,
        message text NOT NULL,
        PRIMARY KEY (session_id, position)
      );`,
  },
];

/**
 * Brings `schema` (a quoted identifier; `schemaName` is its plain name) up
 * to `migrations` in one transaction, recording each step in
 * `schema_migrations`. The transaction first takes an advisory lock keyed on
 * the schema, so nodes starting at once take turns instead of racing on
 * CREATE; it is the transaction-scoped form (`pg_advisory_xact_lock`), so a
 * crash can never leave the lock held. When nothing is pending it issues no
 * DDL, so a role without CREATE rights can start against a migrated schema.
 */
export async function applyMigrations(
  pool: Pool,
  schema: string,
  schemaName: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(
      "SELECT pg_advisory_xact_lock(hashtext('parley.store-postgres'), hashtext($1))",
      [schemaName],
    );
    const existing = await client.query<{ table: string | null }>(
      'SELECT to_regclass($1)::text AS table',
      [`${schema}.schema_migrations`],
    );
    if ((existing.rows[0]?.table ?? null) === null) {
      const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        schemaName,
      ]);
      if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`
        CREATE TABLE ${schema}.schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
    }
    const applied = await client.query<StoreMigration>(
      `SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`,
    );
    for (const migration of pendingMigrations(migrations, applied.rows)) {
      await client.query(migration.sql(schema));
      await client.query(
        `INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`,
        [migration.version, migration.name],
      );
    }
  });
}
