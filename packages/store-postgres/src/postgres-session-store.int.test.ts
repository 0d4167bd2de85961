import { StoreMigrationError } from '@parley/core';
import {
  describeSessionStoreConformance,
  freshSessionId,
  sampleAudit,
  sampleState,
} from '@parley/core/conformance';
import { Pool, escapeIdentifier } from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import type { SessionChange } from './session-subscription.js';
import { postgresTestUrl, randomName, useTestSchemas } from '../test/test-schemas.js';

const url = postgresTestUrl('Postgres store');

describe.skipIf(url === '')('PostgresSessionStore', () => {
  const connectionString = url;
  // One pool for reaching behind the stores' backs and dropping test schemas.
  const { admin, testSchema } = useTestSchemas(connectionString);

  describeSessionStoreConformance('PostgresSessionStore', async () => {
    const schema = randomName('parley_conformance');
    const quoted = escapeIdentifier(schema);
    const store = await PostgresSessionStore.open({
      connectionString,
      schema,
      channel: randomName('parley_channel'),
    });
    const reopened: PostgresSessionStore[] = [];
    return {
      store,
      async corrupt(sessionId, rawText) {
        await admin().query(
          `INSERT INTO ${quoted}.sessions (id, version, state) VALUES ($1, 1, $2)
           ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, message_count = NULL`,
          [sessionId, rawText],
        );
        await admin().query(`DELETE FROM ${quoted}.session_messages WHERE session_id = $1`, [
          sessionId,
        ]);
      },
      async readRaw(sessionId) {
        const result = await admin().query<{ state: string; version: number }>(
          `SELECT state, version FROM ${quoted}.sessions WHERE id = $1`,
          [sessionId],
        );
        const row = result.rows[0];
        if (row === undefined) return undefined;
        const messages = await admin().query<{ message: string }>(
          `SELECT message FROM ${quoted}.session_messages WHERE session_id = $1 ORDER BY position`,
          [sessionId],
        );
        const texts = messages.rows.map(({ message }) => message);
        return { text: [row.state, ...texts].join('\n'), version: row.version };
      },
      async messageVersions(sessionId) {
        const result = await admin().query<{ written_version: number }>(
          `SELECT written_version FROM ${quoted}.session_messages WHERE session_id = $1
           ORDER BY position`,
          [sessionId],
        );
        return result.rows.map((row) => row.written_version);
      },
      async tamperMessage(sessionId, position, change) {
        const result = await admin().query<{ message: string }>(
          `SELECT message FROM ${quoted}.session_messages WHERE session_id = $1 AND position = $2`,
          [sessionId, position],
        );
        const row = result.rows[0];
        if (row === undefined) throw new Error('no such row');
        const text = change(row.message);
        await (text === undefined
          ? admin().query(
              `DELETE FROM ${quoted}.session_messages WHERE session_id = $1 AND position = $2`,
              [sessionId, position],
            )
          : admin().query(
              `UPDATE ${quoted}.session_messages SET message = $3
               WHERE session_id = $1 AND position = $2`,
              [sessionId, position, text],
            ));
      },
      async reopen() {
        const other = new PostgresSessionStore({ connectionString, schema });
        reopened.push(other);
        return other;
      },
      async failAuditWrites() {
        await admin().query(`
          CREATE FUNCTION ${quoted}.refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'audit writes refused by the test'; END $$;
          CREATE TRIGGER refuse_audit BEFORE INSERT ON ${quoted}.audit
            FOR EACH ROW EXECUTE FUNCTION ${quoted}.refuse_audit();`);
      },
      async close() {
        await store.close();
        for (const other of reopened) await other.close();
        await admin().query(`DROP SCHEMA IF EXISTS ${quoted} CASCADE`);
      },
    };
  });

  it('migrates once when several nodes start at the same moment', async () => {
    const schema = testSchema();
    const nodes = Array.from(
      { length: 5 },
      () => new PostgresSessionStore({ connectionString, schema }),
    );
    try {
      await Promise.all(nodes.map((node) => node.migrate()));
      const applied = await admin().query(
        `SELECT version, name FROM ${escapeIdentifier(schema)}.schema_migrations ORDER BY version`,
      );
      expect(applied.rows).toStrictEqual(
        POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })),
      );
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });

  it('refuses a schema migrated by a newer build', async () => {
    const schema = testSchema();
    await (await PostgresSessionStore.open({ connectionString, schema })).close();
    await admin().query(
      `INSERT INTO ${escapeIdentifier(schema)}.schema_migrations (version, name) VALUES ($1, 'later')`,
      [POSTGRES_MIGRATIONS.length + 1],
    );
    await expect(PostgresSessionStore.open({ connectionString, schema })).rejects.toThrow(
      StoreMigrationError,
    );
  });

  it('quotes schema names, and keeps data across stores', async () => {
    const schema = testSchema('Parley Test "quoted"');
    const first = await PostgresSessionStore.open({ connectionString, schema });
    const id = freshSessionId();
    await first.save(id, sampleState(id), 0, { audit: [sampleAudit(id, 'asked')] });
    await first.close();
    const second = new PostgresSessionStore({ connectionString, schema });
    expect(await second.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
    expect(await second.listAudit(id)).toStrictEqual([sampleAudit(id, 'asked')]);
    await second.close();
  });

  it('keeps audit records append-only in the database itself', async () => {
    const schema = testSchema();
    const store = await PostgresSessionStore.open({ connectionString, schema });
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0, { audit: [sampleAudit(id, 'asked')] });
    const audit = `${escapeIdentifier(schema)}.audit`;
    await expect(admin().query(`UPDATE ${audit} SET decision = 'confirmed'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(admin().query(`DELETE FROM ${audit}`)).rejects.toThrow(/append-only/);
    await expect(admin().query(`TRUNCATE ${audit}`)).rejects.toThrow(/append-only/);
    expect(await store.listAudit(id)).toStrictEqual([sampleAudit(id, 'asked')]);
    await store.close();
  });

  it('uses a pool it is given and leaves it open', async () => {
    const pool = new Pool({ connectionString, max: 3 });
    const store = await PostgresSessionStore.open({ pool, schema: testSchema() });
    const id = freshSessionId();
    expect(await store.save(id, sampleState(id), 0)).toBe(1);
    await store.close();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toStrictEqual([{ one: 1 }]);
    await pool.end();
  });

  it('tells subscribers on other nodes of every committed save, and only those', async () => {
    const schema = testSchema();
    const channel = randomName('parley_channel');
    const follower = await PostgresSessionStore.open({ connectionString, schema, channel });
    const writer = await PostgresSessionStore.open({ connectionString, schema, channel });
    const id = freshSessionId('with:colons');
    const seen: SessionChange[] = [];
    let reachedVersion3: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (reachedVersion3 = resolve));
    await follower.subscribe((change) => {
      if (change.sessionId !== id) return;
      seen.push(change);
      if (change.version === 3) reachedVersion3();
    });
    await writer.save(id, sampleState(id, 0), 0);
    await expect(writer.save(id, sampleState(id, 1), 0)).rejects.toThrow();
    await writer.save(id, sampleState(id, 1), 1, { audit: [sampleAudit(id, 'confirmed')] });
    await admin().query(`
      CREATE FUNCTION ${escapeIdentifier(schema)}.refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'no boom'; END $$;
      CREATE TRIGGER refuse_boom BEFORE INSERT ON ${escapeIdentifier(schema)}.audit
        FOR EACH ROW WHEN (NEW.tool_name = 'boom') EXECUTE FUNCTION ${escapeIdentifier(schema)}.refuse_boom();`);
    const boom = [sampleAudit(id, 'executed', { toolName: 'boom' })];
    await expect(writer.save(id, sampleState(id, 2), 2, { audit: boom })).rejects.toThrow(
      /no boom/,
    );
    await writer.save(id, sampleState(id, 2), 2);
    await done;
    expect(seen).toStrictEqual([
      { sessionId: id, version: 1 },
      { sessionId: id, version: 2 },
      { sessionId: id, version: 3 },
    ]);
    await writer.close();
    await follower.close();
  });

  it('reports a throwing subscriber to onError and keeps listening', async () => {
    const schema = testSchema();
    const store = await PostgresSessionStore.open({ connectionString, schema });
    const errors: Error[] = [];
    const versions: number[] = [];
    const id = freshSessionId();
    let finished: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const subscription = await store.subscribe(
      (change) => {
        if (change.sessionId !== id) return;
        versions.push(change.version);
        if (change.version === 1) throw new Error('subscriber broke');
        finished();
      },
      { onError: (error) => errors.push(error) },
    );
    await store.save(id, sampleState(id), 0);
    await store.save(id, sampleState(id, 1), 1);
    await done;
    expect(versions).toStrictEqual([1, 2]);
    expect(errors.map((error) => error.message)).toStrictEqual(['subscriber broke']);
    await subscription.close();
    await subscription.close();
    await store.close();
  });
});
