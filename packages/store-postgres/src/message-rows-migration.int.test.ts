import { InvalidStateError } from '@parley/core';
import { freshSessionId, historyState, sampleState } from '@parley/core/conformance';
import { escapeIdentifier } from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS, applyMigrations } from './migrations.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { postgresTestUrl, useTestSchemas } from '../test/test-schemas.js';

const url = postgresTestUrl('Postgres message-row migration');

describe.skipIf(url === '')('PostgresSessionStore message rows (migration 5)', () => {
  const connectionString = url;
  const { admin, testSchema } = useTestSchemas(connectionString);

  it('loads sessions stored whole by the version-4 schema, and moves each to rows on its next save', async () => {
    const schema = testSchema('parley_rows');
    const quoted = escapeIdentifier(schema);
    await applyMigrations(admin(), quoted, schema, POSTGRES_MIGRATIONS.slice(0, 4));
    const long = freshSessionId('long');
    const parked = freshSessionId('parked');
    const broken = freshSessionId('broken');
    for (const [id, text] of [
      [long, JSON.stringify(historyState(long, 20))],
      [parked, JSON.stringify(sampleState(parked, 1))],
      [broken, '{"schemaVersion":'],
    ]) {
      await admin().query(
        `INSERT INTO ${quoted}.sessions (id, version, state) VALUES ($1, 3, $2)`,
        [id, text],
      );
    }
    const store = await PostgresSessionStore.open({ connectionString, schema });
    try {
      expect(await store.load(long)).toStrictEqual({ state: historyState(long, 20), version: 3 });
      expect(await store.load(parked)).toStrictEqual({
        state: sampleState(parked, 1),
        version: 3,
      });
      await expect(store.load(broken)).rejects.toBeInstanceOf(InvalidStateError);
      expect(await store.save(long, historyState(long, 21), 3)).toBe(4);
    } finally {
      await store.close();
    }
    const head = await admin().query<{ state: string; message_count: number | null }>(
      `SELECT state, message_count FROM ${quoted}.sessions WHERE id = $1 OR id = $2 ORDER BY id = $1`,
      [long, broken],
    );
    const rows = await admin().query<{ n: string }>(
      `SELECT count(*) AS n FROM ${quoted}.session_messages WHERE session_id = $1`,
      [long],
    );
    expect(head.rows[0]).toStrictEqual({ state: '{"schemaVersion":', message_count: null });
    expect(head.rows[1]?.message_count).toBe(42);
    expect(head.rows[1]?.state).not.toContain('"context"');
    expect(rows.rows[0]?.n).toBe('42');
    const reopened = await PostgresSessionStore.open({ connectionString, schema });
    try {
      expect(await reopened.load(long)).toStrictEqual({
        state: historyState(long, 21),
        version: 4,
      });
    } finally {
      await reopened.close();
    }
  });
});
