import type { ClientConfig } from 'pg';
import { Client, Pool, escapeIdentifier } from 'pg';
import { StaleSessionError } from '@parley/core';
import { freshSessionId, sampleAudit, sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import { PostgresSessionStore } from './postgres-session-store.js';
import { postgresTestUrl, useTestSchemas } from '../test/test-schemas.js';

const url = postgresTestUrl('Postgres one-statement save');

/** The SQL text of a `query` call's first argument. */
function textOf(query: unknown): string {
  if (typeof query === 'string') return query;
  if (typeof query === 'object' && query !== null && 'text' in query) return String(query.text);
  return String(query);
}

/**
 * A pool whose connections write down the text of every query they are
 * sent, however the caller reaches them (`pool.query` or a checked-out
 * client), into `sent`.
 */
function recordingPool(connectionString: string, sent: string[]): Pool {
  class RecordingClient extends Client {
    constructor(config?: string | ClientConfig) {
      super(config);
      const query: unknown = Reflect.get(this, 'query');
      if (typeof query !== 'function') throw new Error('pg client without query');
      Reflect.set(this, 'query', (...args: unknown[]): unknown => {
        sent.push(textOf(args[0]));
        const result: unknown = Reflect.apply(query, this, args);
        return result;
      });
    }
  }
  return new Pool({ connectionString, max: 3, Client: RecordingClient });
}

/** What `promise` was rejected with; `undefined` if it was fulfilled. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** Resolves once some backend waits on a lock that backend `holder` holds. */
async function blockedBy(admin: Pool, holder: number): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const waiting = await admin.query(
      'SELECT 1 FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
      [holder],
    );
    if (waiting.rowCount !== 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`nothing waited on backend ${holder}`);
}

describe.skipIf(url === '')('PostgresSessionStore saves in one statement', () => {
  const connectionString = url;
  const { admin, testSchema } = useTestSchemas(connectionString);

  it('sends every save as one query, whatever it writes, and keeps the records in order', async () => {
    const sent: string[] = [];
    const pool = recordingPool(connectionString, sent);
    const store = await PostgresSessionStore.open({ pool, schema: testSchema('parley_save') });
    try {
      const id = freshSessionId();
      const records = Array.from({ length: 60 }, (_, index) =>
        sampleAudit(id, index % 2 === 0 ? 'asked' : 'executed', { toolCallId: `tc${index}` }),
      );
      const saves = [
        () => store.save(id, sampleState(id, 0), 0, { audit: records.slice(0, 25) }),
        () => store.save(id, sampleState(id, 1), 1),
        () => store.save(id, sampleState(id, 2), 2, { audit: records.slice(25, 26) }),
        () => store.save(id, sampleState(id, 0), 3, { audit: records.slice(26), relaxed: true }),
        () => store.save(id, sampleState(id, 1), 4, { relaxed: true }),
      ];
      for (const [index, save] of saves.entries()) {
        sent.length = 0;
        expect(await save()).toBe(index + 1);
        expect(sent).toHaveLength(1);
      }
      expect(await store.listAudit(id)).toStrictEqual(records);
      expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 1), version: 5 });
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('writes no audit record when the version check fails, and reads the version only then', async () => {
    const sent: string[] = [];
    const pool = recordingPool(connectionString, sent);
    const store = await PostgresSessionStore.open({ pool, schema: testSchema('parley_save') });
    try {
      const id = freshSessionId();
      const first = sampleAudit(id, 'asked');
      await store.save(id, sampleState(id), 0, { audit: [first] });
      const lost = [sampleAudit(id, 'confirmed'), sampleAudit(id, 'executed')];
      for (const expectedVersion of [0, 2, 7]) {
        sent.length = 0;
        const error = await failureOf(
          store.save(id, sampleState(id, 1), expectedVersion, { audit: lost }),
        );
        expect(error).toBeInstanceOf(StaleSessionError);
        expect(error).toMatchObject({ sessionId: id, expectedVersion, actualVersion: 1 });
        expect(sent).toHaveLength(2);
      }
      const missing = freshSessionId('missing');
      await expect(
        store.save(missing, sampleState(missing), 3, { audit: [sampleAudit(missing, 'asked')] }),
      ).rejects.toMatchObject({ expectedVersion: 3, actualVersion: undefined });
      expect(await store.listAudit(id)).toStrictEqual([first]);
      expect(await store.listAudit(missing)).toStrictEqual([]);
      expect(await store.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
      expect(await store.load(missing)).toBeUndefined();
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('refuses a creation that waited on another writer creating the same session', async () => {
    const schema = testSchema('parley_save');
    const store = await PostgresSessionStore.open({ connectionString, schema });
    const other = await admin().connect();
    try {
      const id = freshSessionId();
      const holder = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await other.query('BEGIN');
      await other.query(
        `INSERT INTO ${escapeIdentifier(schema)}.sessions (id, version, state) VALUES ($1, 1, $2)`,
        [id, JSON.stringify(sampleState(id, 5))],
      );
      const settled = failureOf(
        store.save(id, sampleState(id), 0, { audit: [sampleAudit(id, 'asked')] }),
      );
      await blockedBy(admin(), holder.rows[0]!.pid);
      await other.query('COMMIT');
      const error = await settled;
      expect(error).toBeInstanceOf(StaleSessionError);
      expect(error).toMatchObject({ expectedVersion: 0, actualVersion: 1 });
      expect(await store.listAudit(id)).toStrictEqual([]);
      expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 5), version: 1 });
    } finally {
      other.release();
      await store.close();
    }
  });
});
