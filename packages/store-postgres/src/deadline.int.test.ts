import { freshSessionId, sampleState } from '@parley/core/conformance';
import { Pool, escapeIdentifier } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS, applyMigrations } from './migrations.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { postgresTestUrl } from '../test/test-schemas.js';

const url = postgresTestUrl('Postgres deadline');

describe.skipIf(url === '')('PostgresSessionStore deadlines', () => {
  const connectionString = url;
  let admin: Pool;
  const schema = `parley_deadline_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
  const quoted = escapeIdentifier(schema);

  beforeAll(() => {
    admin = new Pool({ connectionString, max: 2 });
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${quoted} CASCADE`);
    await admin.end();
  });

  it('backfills the deadline column from the states of a version-2 schema', async () => {
    await applyMigrations(admin, quoted, schema, POSTGRES_MIGRATIONS.slice(0, 2));
    const parked = freshSessionId('parked');
    const running = freshSessionId('running');
    const corrupt = freshSessionId('corrupt');
    const withDeadline = (id: string, status: 'parked' | 'running'): string => {
      const state = sampleState(id);
      if (state.reply !== null) {
        state.reply.status = status;
        state.reply.deadline = '2030-01-01T01:00:00+01:00';
      }
      return JSON.stringify(state);
    };
    const insert = `INSERT INTO ${quoted}.sessions (id, version, state) VALUES ($1, 1, $2)`;
    await admin.query(insert, [parked, withDeadline(parked, 'parked')]);
    await admin.query(insert, [running, withDeadline(running, 'running')]);
    await admin.query(insert, [corrupt, '{"reply": {"status": "parked", "deadl']);
    const store = await PostgresSessionStore.open({ connectionString, schema });
    try {
      expect(await store.listDue('2030-01-01T00:00:00.000Z')).toStrictEqual([parked]);
      expect(await store.listDue('2029-12-31T23:59:59.999Z')).toStrictEqual([]);
      const id = freshSessionId('relaxed');
      expect(await store.save(id, sampleState(id), 0, { relaxed: true })).toBe(1);
      expect(await store.save(id, sampleState(id, 1), 1)).toBe(2);
      expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 1), version: 2 });
    } finally {
      await store.close();
    }
  });
});
