import { Pool, escapeIdentifier } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../auth/api-key-auth.js';
import { PostgresServerLog } from './postgres-server-log.js';
import type { IdempotentRequest } from '../session-log.js';
import { postgresTestUrl, randomName } from '../../../test/postgres-url.js';

const url = postgresTestUrl('Postgres log statement');

describe.skipIf(url === '')('PostgresServerLog statements', () => {
  let admin: Pool | undefined;
  const schemas: string[] = [];
  const pools: Pool[] = [];
  beforeAll(() => {
    admin = new Pool({ connectionString: url, max: 1 });
  });
  afterAll(async () => {
    for (const pool of pools) await pool.end();
    for (const schema of schemas) {
      await admin?.query(`DROP SCHEMA IF EXISTS ${escapeIdentifier(schema)} CASCADE`);
    }
    await admin?.end();
  });

  /** A log on a pool of one connection, so the prepared statements that pool lists are the log's. */
  async function logOnOneConnection(prepare?: boolean) {
    const pool = new Pool({ connectionString: url, max: 1 });
    pools.push(pool);
    const schema = randomName('parley_log_statements');
    schemas.push(schema);
    const log = await PostgresServerLog.open({
      pool,
      schema,
      channel: randomName('parley_events'),
      ...(prepare === undefined ? {} : { prepare }),
    });
    const prepared = async () => {
      const result = await pool.query<{ name: string }>(
        `SELECT name FROM pg_prepared_statements WHERE name LIKE 'parley\\_%' ORDER BY name`,
      );
      return result.rows.map((row) => row.name);
    };
    return { log, prepared };
  }

  /** What a request does with the log: a session, its events read back, a key, a claim. */
  async function requests(log: PostgresServerLog): Promise<void> {
    const sessionId = globalThis.crypto.randomUUID();
    await log.createSession({ id: sessionId, owner: 'alice', createdAt: new Date().toISOString() });
    expect((await log.session(sessionId))?.owner).toBe('alice');
    const first = await log.lastSeq(sessionId);
    const events = [1, 2].map((step) => ({
      seq: first + step,
      type: 'TEXT',
      data: `{"n":${step}}`,
    }));
    await log.append(sessionId, events, first + 2, { after: first });
    expect(await log.events(sessionId, first, 10)).toEqual(events);
    const { record } = await createApiKey(log, 'alice');
    expect((await log.findKey(record.id))?.secretHash).toBe(record.secretHash);
    const claim: IdempotentRequest = {
      principal: 'alice',
      key: globalThis.crypto.randomUUID(),
      requestHash: 'h',
      claimId: globalThis.crypto.randomUUID(),
      heldUntil: Date.now() + 60_000,
      after: null,
      lastSeq: null,
      response: null,
      status: 200,
      interrupted: false,
    };
    expect(await log.claimIdempotency(claim, Date.now())).toBeUndefined();
    await log.settleIdempotency({ ...claim, after: first, lastSeq: first + 2, response: '{}' });
  }

  it('prepares its frequent statements once per connection', async () => {
    const { log, prepared } = await logOnOneConnection();
    await requests(log);
    const names = await prepared();
    // createSession, session, lastSeq, the append, events, findKey, claim, settle.
    expect(names.length).toBe(8);
    await requests(log);
    expect(await prepared()).toEqual(names);
    await log.close();
  });

  it('prepares nothing with prepare: false', async () => {
    const { log, prepared } = await logOnOneConnection(false);
    await requests(log);
    expect(await prepared()).toEqual([]);
    await log.close();
  });
});
