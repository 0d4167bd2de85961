import { pendingMigrations } from '@parley/core';
import type { StoreMigration } from '@parley/core';
import type { Pool, PoolClient } from 'pg';

/**
 * One schema step of the Postgres server log. `sql` gets the schema name
 * already quoted as an identifier and returns the statements to run.
 */
export type PostgresLogMigration = StoreMigration & { sql: (schema: string) => string };

/**
 * The server log's tables, in order. They sit beside the session store's
 * tables (same schema, names prefixed `parley_`) and keep their own record
 * of the steps run, `parley_server_migrations`. Append new steps; never
 * edit or renumber one that has shipped.
 */
export const POSTGRES_LOG_MIGRATIONS: readonly PostgresLogMigration[] = [
  {
    version: 1,
    name: 'sessions, events and keys',
    // `position`: the order sessions were created in (the listing's cursor).
    sql: (schema) => `
      CREATE TABLE ${schema}.parley_server_sessions (
        id text PRIMARY KEY,
        position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        owner text NOT NULL,
        created_at text NOT NULL
      );
      CREATE INDEX parley_server_sessions_owner
        ON ${schema}.parley_server_sessions (owner, position);
      CREATE TABLE ${schema}.parley_session_events (
        session_id text NOT NULL,
        seq bigint NOT NULL CHECK (seq > 0),
        type text NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE ${schema}.parley_session_event_heads (
        session_id text PRIMARY KEY,
        reserved bigint NOT NULL
      );
      CREATE TABLE ${schema}.parley_api_keys (
        id text PRIMARY KEY,
        principal text NOT NULL,
        roles jsonb NOT NULL,
        secret_hash text NOT NULL,
        created_at text NOT NULL,
        revoked_at text
      );`,
  },
  {
    version: 2,
    name: 'waiting calls',
    sql: (schema) => `
      CREATE TABLE ${schema}.parley_waiting_calls (
        session_id text NOT NULL,
        tool_call_id text NOT NULL,
        position integer NOT NULL,
        reply_id text NOT NULL,
        deadline text,
        tool_call text NOT NULL,
        PRIMARY KEY (session_id, tool_call_id)
      );`,
  },
  {
    version: 3,
    name: 'idempotency',
    sql: (schema) => `
      CREATE TABLE ${schema}.parley_idempotency (
        principal text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        after bigint,
        last_seq bigint,
        response text,
        PRIMARY KEY (principal, key)
      );`,
  },
  {
    version: 4,
    name: 'idempotency claim holders',
    // Who holds a claim and until when (epoch ms). A claim still running
    // when this runs may be held by a node of the build before, which does
    // not renew it: it is given one default lease from now.
    sql: (schema) => `
      ALTER TABLE ${schema}.parley_idempotency
        ADD COLUMN claim_id text NOT NULL DEFAULT '',
        ADD COLUMN held_until bigint NOT NULL DEFAULT 0;
      UPDATE ${schema}.parley_idempotency
        SET held_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 30000
        WHERE last_seq IS NULL AND response IS NULL;`,
  },
  {
    version: 5,
    name: 'interrupted idempotent requests',
    // Whether the reply of a settled claim was cut off by its process dying.
    sql: (schema) => `
      ALTER TABLE ${schema}.parley_idempotency
        ADD COLUMN interrupted boolean NOT NULL DEFAULT false;`,
  },
  {
    version: 6,
    name: 'failed idempotent requests',
    // The HTTP status of a settled claim's response: a failed request keeps its error.
    sql: (schema) => `
      ALTER TABLE ${schema}.parley_idempotency
        ADD COLUMN status integer NOT NULL DEFAULT 200;`,
  },
  {
    version: 7,
    name: 'waiting calls versions',
    // The version of the stored state each session's waiting calls were
    // read from: a refresh from an older state is ignored, and only the
    // calls of the version recorded are listed. Sessions indexed before
    // have none (their calls are listed), and the next refresh sets it.
    sql: (schema) => `
      CREATE TABLE ${schema}.parley_waiting_versions (
        session_id text PRIMARY KEY,
        version bigint NOT NULL
      );
      ALTER TABLE ${schema}.parley_waiting_calls ADD COLUMN version bigint NOT NULL DEFAULT 0;`,
  },
];

/** Runs `work` in a transaction on a pooled client; a client whose ROLLBACK failed is discarded. */
export async function inTransaction(pool: Pool, work: (client: PoolClient) => Promise<void>) {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Brings the log's tables in `schema` (quoted; `schemaName` is its plain
 * name) up to `migrations`, in one transaction under an advisory lock
 * keyed on the schema, so nodes starting at once take turns. A database
 * migrated by a newer build, or by a list that forked, is refused
 * (`StoreMigrationError`). Nothing pending: no DDL is issued.
 */
export async function applyLogMigrations(
  pool: Pool,
  schema: string,
  schemaName: string,
  migrations: readonly PostgresLogMigration[] = POSTGRES_LOG_MIGRATIONS,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(
      "SELECT pg_advisory_xact_lock(hashtext('parley.server-log'), hashtext($1))",
      [schemaName],
    );
    const table = `${schema}.parley_server_migrations`;
    const existing = await client.query<{ table: string | null }>(
      'SELECT to_regclass($1)::text AS table',
      [table],
    );
    if ((existing.rows[0]?.table ?? null) === null) {
      const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        schemaName,
      ]);
      if (found.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`
        CREATE TABLE ${table} (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
    }
    const applied = await client.query<StoreMigration>(
      `SELECT version, name FROM ${table} ORDER BY version`,
    );
    for (const migration of pendingMigrations(migrations, applied.rows)) {
      await client.query(migration.sql(schema));
      await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
  });
}
