// The stores bench/server-load.ts runs on, by name. Each call makes a fresh
// pair: a SessionStore and the server's SessionLog (which also keeps the
// API keys), plus how to close them.
//
// sqlite:   both on one new file (as `parley serve` keeps them), WAL;
//           SYNC=NORMAL (default FULL) sets both connections' synchronous,
//           to see the process's own costs without a sync per commit;
//           LOG_SYNC=NORMAL sets the server log's alone (the store's FULL
//           commits then sync the log's pages too: one WAL file);
//           LOG_FILE=own puts the log in a file of its own, so the
//           commits of one connection no longer empty the other's page
//           cache (what one shared connection would also spare).
// postgres: the sessions on PostgresSessionStore and the server's log on
//           PostgresServerLog, both in one fresh schema per call
//           (PARLEY_PG_URL), dropped when the backend is closed.
//           PREPARE=off runs both without named prepared statements
//           (`prepare: false`); PREPARE=log prepares the log's alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStore } from '@parley/core';
import { PostgresServerLog, SqliteServerLog } from '@parley/server';
import type { ApiKeyStore, SessionLog } from '@parley/server';
import { PostgresSessionStore } from '@parley/store-postgres';
import { SqliteSessionStore } from '@parley/store-sqlite';
import pg from 'pg';

/** A store and a log for one side of the comparison. */
export type Backend = {
  store: SessionStore;
  log: SessionLog & ApiKeyStore;
  /** What the output calls this backend. */
  label: string;
  close(): Promise<void>;
};

/** Makes a fresh backend; `name` tells the files or schemas apart. */
export type BackendMaker = (name: string) => Promise<Backend>;

const directory = mkdtempSync(join(tmpdir(), 'parley-server-load-'));

/** Removes the files every backend of this run made. */
export function removeBackendFiles(): void {
  rmSync(directory, { recursive: true, force: true });
}

const sqlite: BackendMaker = async (name) => {
  const path = join(directory, `${name}.sqlite`);
  const synchronous = process.env.SYNC === 'NORMAL' ? 'NORMAL' : 'FULL';
  const store = new SqliteSessionStore({ path, synchronous });
  const logSynchronous = process.env.LOG_SYNC === 'NORMAL' ? 'NORMAL' : synchronous;
  const split = process.env.LOG_FILE === 'own';
  const logPath = split ? join(directory, `${name}-log.sqlite`) : path;
  const log = new SqliteServerLog({ path: logPath, synchronous: logSynchronous });
  const files = split ? 'store and log in files of their own' : 'store and log in one file';
  return {
    store,
    log,
    label: `SQLite (${files}; synchronous=${synchronous}, log ${logSynchronous})`,
    close: async () => {
      await store.close();
      log.close();
    },
  };
};

const postgres: BackendMaker = async (name) => {
  const url = process.env.PARLEY_PG_URL;
  if (url === undefined) throw new Error('The postgres backend needs PARLEY_PG_URL.');
  const schema = `bench_server_${name.replace(/\W/g, '_')}_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  const prepare = process.env.PREPARE ?? 'on';
  const store = new PostgresSessionStore({
    connectionString: url,
    schema,
    prepare: prepare === 'on',
  });
  const log = await PostgresServerLog.open({
    connectionString: url,
    schema,
    prepare: prepare !== 'off',
  });
  return {
    store,
    log,
    label: 'Postgres (store and log in one schema)',
    close: async () => {
      await store.close();
      await log.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await cleanup.end();
    },
  };
};

/** The backends by the name given on the command line. */
export const backends: ReadonlyMap<string, BackendMaker> = new Map([
  ['sqlite', sqlite],
  ['postgres', postgres],
]);
