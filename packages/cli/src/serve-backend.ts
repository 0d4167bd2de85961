import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SessionStore } from '@parley/core';
import {
  PostgresServerLog,
  SqliteServerLog,
  memoryRateLimit,
  postgresRateLimit,
} from '@parley/server';
import type { ApiKeyStore, RateLimit, RateLimitOptions, SessionLog } from '@parley/server';
import { PostgresSessionStore } from '@parley/store-postgres';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { Pool } from 'pg';
import { UsageError } from './args.js';

/** The folder `parley serve` and `parley keys` keep their SQLite file in, by default. */
export const defaultDataFolder = '.parley';

/** The SQLite file in a data folder (sessions, events and API keys share it). */
export function databasePath(data: string | undefined): string {
  return join(resolve(data ?? defaultDataFolder), 'parley.sqlite');
}

/**
 * Where `parley serve` and `parley keys` keep things: `db`, a
 * `postgres://` URL (then `schema` names the Postgres schema, default
 * `public`, and `prepare: false` turns named prepared statements off, for
 * PgBouncer in transaction mode), or without it the SQLite file in the
 * `data` folder.
 */
export type DatabaseChoice = { db?: string; schema?: string; prepare?: boolean; data?: string };

/** The log and its keys, opened on the chosen database, and how to close them. */
export type KeyBackend = {
  log: SessionLog & ApiKeyStore;
  /** Where it is, for people: the SQLite path, or the URL without its password. */
  where: string;
  close: () => Promise<void>;
};

/** The session store beside the log, and a rate limiter counting on the same database. */
export type Backend = KeyBackend & {
  store: SessionStore;
  rateLimit: (options: RateLimitOptions) => Promise<RateLimit>;
};

/** Whether `db` is a Postgres connection URL. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//.test(db);
}

/** A connection URL with its password hidden, for printing. */
export function shownUrl(db: string): string {
  try {
    const url = new URL(db);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

function postgresUrl(db: string): string {
  if (!isPostgresUrl(db)) {
    throw new UsageError(
      `--db ${JSON.stringify(shownUrl(db))}: give a postgres:// URL, or leave --db out for SQLite under --data.`,
    );
  }
  return db;
}

async function sqliteLog(data: string | undefined): Promise<KeyBackend & { path: string }> {
  const path = databasePath(data);
  await mkdir(join(path, '..'), { recursive: true });
  const log = new SqliteServerLog({ path });
  return { log, path, where: path, close: () => Promise.resolve(log.close()) };
}

/** Opens the log (and its API keys) alone, for `parley keys`. */
export async function openKeyBackend(choice: DatabaseChoice): Promise<KeyBackend> {
  if (choice.db === undefined) return sqliteLog(choice.data);
  const log = await PostgresServerLog.open({
    connectionString: postgresUrl(choice.db),
    ...(choice.schema === undefined ? {} : { schema: choice.schema }),
  });
  return { log, where: shownUrl(choice.db), close: () => log.close() };
}

/**
 * Opens the session store, the log and the rate limiter's store on one
 * database: SQLite (one node) or Postgres (one pool per node, shared by the
 * three; every node of a deployment points at the same database and schema).
 * `onError`: failures nobody awaits (a dropped idle connection).
 */
export async function openBackend(
  choice: DatabaseChoice,
  onError: (error: Error) => void,
): Promise<Backend> {
  if (choice.db === undefined) {
    const sqlite = await sqliteLog(choice.data);
    const store = new SqliteSessionStore({ path: sqlite.path });
    return {
      ...sqlite,
      store,
      rateLimit: (options) => Promise.resolve(memoryRateLimit(options)),
      close: async () => {
        await store.close();
        await sqlite.close();
      },
    };
  }
  const pool = new Pool({ connectionString: postgresUrl(choice.db) });
  pool.on('error', onError);
  const schema = choice.schema === undefined ? {} : { schema: choice.schema };
  const prepare = choice.prepare === undefined ? {} : { prepare: choice.prepare };
  try {
    // The store first: its migration creates the schema the log's tables join.
    const store = await PostgresSessionStore.open({ pool, onError, ...schema, ...prepare });
    const log = await PostgresServerLog.open({ pool, onError, ...schema, ...prepare });
    return {
      log,
      store,
      where: shownUrl(choice.db),
      rateLimit: (options) => postgresRateLimit(options, { pool, ...schema }),
      close: async () => {
        await log.close();
        await store.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
