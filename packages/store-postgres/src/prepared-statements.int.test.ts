import { freshSessionId, sampleState } from '@parley/core/conformance';
import { Pool } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from './postgres-session-store.js';
import { postgresTestUrl, useTestSchemas } from '../test/test-schemas.js';

const url = postgresTestUrl('Postgres prepared statement');

describe.skipIf(url === '')('PostgresSessionStore statements', () => {
  const connectionString = url;
  const { testSchema } = useTestSchemas(connectionString);
  const pools: Pool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end();
  });

  /** A pool of one connection, so the prepared statements it lists are the stores'. */
  function onePool(): Pool {
    const pool = new Pool({ connectionString, max: 1 });
    pools.push(pool);
    return pool;
  }

  async function prepared(pool: Pool): Promise<string[]> {
    const result = await pool.query<{ name: string }>(
      `SELECT name FROM pg_prepared_statements WHERE name LIKE 'parley\\_%' ORDER BY name`,
    );
    return result.rows.map((row) => row.name);
  }

  /** Creates, updates and loads one session (uncached, by a second store on the pool). */
  async function roundTrip(store: PostgresSessionStore, reader: PostgresSessionStore) {
    const sessionId = freshSessionId();
    const version = await store.save(sessionId, sampleState(sessionId), 0);
    await store.save(sessionId, sampleState(sessionId, 1), version);
    return reader.load(sessionId);
  }

  it('prepares loads and saves once per connection, stores of two schemas side by side', async () => {
    const pool = onePool();
    const [first, second] = [testSchema(), testSchema()];
    const storeOf = (schema: string) => new PostgresSessionStore({ pool, schema });
    const loaded = await roundTrip(storeOf(first), storeOf(first));
    expect(loaded?.version).toBe(2);
    const afterOne = await prepared(pool);
    // A load, a creating save and an updating save, each under one name.
    expect(afterOne.length).toBe(3);
    await roundTrip(storeOf(first), storeOf(first));
    expect(await prepared(pool)).toEqual(afterOne);
    // The same statements over another schema are other texts: other names.
    expect((await roundTrip(storeOf(second), storeOf(second)))?.version).toBe(2);
    const afterTwo = await prepared(pool);
    expect(afterTwo.length).toBe(6);
    expect(afterTwo).toEqual(expect.arrayContaining(afterOne));
  });

  it('prepares nothing with prepare: false', async () => {
    const pool = onePool();
    const schema = testSchema();
    const store = new PostgresSessionStore({ pool, schema, prepare: false });
    const reader = new PostgresSessionStore({ pool, schema, prepare: false });
    expect((await roundTrip(store, reader))?.version).toBe(2);
    expect(await prepared(pool)).toEqual([]);
  });
});
