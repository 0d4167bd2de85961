import { StaleSessionError, StoreMigrationError } from '@parley/core';
import {
  describeSessionStoreConformance,
  freshSessionId,
  sampleAudit,
  sampleState,
} from '@parley/core/conformance';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS, applyMigrations } from './migrations.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { useTemporaryDatabases } from './temporary-databases.js';

const temporaryPath = useTemporaryDatabases();

describeSessionStoreConformance('SqliteSessionStore', async () => {
  const path = temporaryPath();
  const store = new SqliteSessionStore({ path });
  const reopened: SqliteSessionStore[] = [];
  // A second connection to the same file: the harness's way behind the store's back.
  const raw = new Database(path);
  return {
    store,
    async corrupt(sessionId, rawText) {
      raw
        .prepare(
          `INSERT INTO sessions (id, version, state, updated_at) VALUES (?, 1, ?, 'now')
           ON CONFLICT (id) DO UPDATE SET state = excluded.state, message_count = NULL`,
        )
        .run(sessionId, rawText);
      raw.prepare('DELETE FROM session_messages WHERE session_id = ?').run(sessionId);
    },
    async readRaw(sessionId) {
      const row = raw
        .prepare<[string], { state: string; version: number }>(
          'SELECT state, version FROM sessions WHERE id = ?',
        )
        .get(sessionId);
      if (row === undefined) return undefined;
      const messages = raw
        .prepare<[string], { message: string }>(
          'SELECT message FROM session_messages WHERE session_id = ? ORDER BY position',
        )
        .all(sessionId)
        .map(({ message }) => message);
      return { text: [row.state, ...messages].join('\n'), version: row.version };
    },
    async messageVersions(sessionId) {
      return raw
        .prepare<[string], { written_version: number }>(
          'SELECT written_version FROM session_messages WHERE session_id = ? ORDER BY position',
        )
        .all(sessionId)
        .map((row) => row.written_version);
    },
    async tamperMessage(sessionId, position, change) {
      const row = raw
        .prepare<[string, number], { message: string }>(
          'SELECT message FROM session_messages WHERE session_id = ? AND position = ?',
        )
        .get(sessionId, position);
      if (row === undefined) throw new Error('no such row');
      const text = change(row.message);
      if (text === undefined) {
        raw
          .prepare('DELETE FROM session_messages WHERE session_id = ? AND position = ?')
          .run(sessionId, position);
      } else {
        raw
          .prepare('UPDATE session_messages SET message = ? WHERE session_id = ? AND position = ?')
          .run(text, sessionId, position);
      }
    },
    async reopen() {
      const other = new SqliteSessionStore({ path });
      reopened.push(other);
      return other;
    },
    async failAuditWrites() {
      raw.exec(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit
        BEGIN SELECT RAISE(ABORT, 'audit writes refused by the test'); END`);
    },
    async close() {
      await store.close();
      for (const other of reopened) await other.close();
      raw.close();
    },
  };
});

describe('SqliteSessionStore', () => {
  it('opens in WAL mode with synchronous FULL unless told NORMAL', async () => {
    const path = temporaryPath();
    const full = new SqliteSessionStore({ path });
    const probe = new Database(path);
    expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    await full.close();
    probe.close();
    // `synchronous` is per connection; read it through the store's own connection.
    const seen: unknown[] = [];
    for (const synchronous of ['FULL', 'NORMAL'] as const) {
      const store = new SqliteSessionStore({ path, synchronous });
      const connection: unknown = Reflect.get(store, 'database');
      if (!(connection instanceof Database)) throw new Error('no connection');
      seen.push(connection.pragma('synchronous', { simple: true }));
      await store.close();
    }
    expect(seen).toStrictEqual([2, 1]);
  });

  it('records each migration once and keeps data across reopening', async () => {
    const path = temporaryPath();
    const first = new SqliteSessionStore({ path });
    const id = freshSessionId();
    await first.save(id, sampleState(id), 0, { audit: [sampleAudit(id, 'asked')] });
    await first.close();
    const second = new SqliteSessionStore({ path });
    expect(await second.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
    expect(await second.listAudit(id)).toStrictEqual([sampleAudit(id, 'asked')]);
    await second.close();
    const probe = new Database(path);
    const applied = probe.prepare('SELECT version, name FROM schema_migrations').all();
    probe.close();
    expect(applied).toStrictEqual(
      SQLITE_MIGRATIONS.map(({ version, name }) => ({ version, name })),
    );
  });

  it('refuses to open a database migrated by a newer build', async () => {
    const path = temporaryPath();
    await new SqliteSessionStore({ path }).close();
    const probe = new Database(path);
    probe
      .prepare("INSERT INTO schema_migrations VALUES (?, 'from the future', 'now')")
      .run(SQLITE_MIGRATIONS.length + 1);
    probe.close();
    expect(() => new SqliteSessionStore({ path })).toThrow(StoreMigrationError);
  });

  it('applies all migrations or none', () => {
    const database = new Database(':memory:');
    const broken = [...SQLITE_MIGRATIONS, { version: 3, name: 'broken', sql: 'NOT SQL' }];
    expect(() => applyMigrations(database, broken)).toThrow();
    const tables = database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'sessions'")
      .all();
    expect(tables).toStrictEqual([]);
    database.close();
  });

  it('keeps audit records append-only in the database itself', async () => {
    const path = temporaryPath();
    const store = new SqliteSessionStore({ path });
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0, { audit: [sampleAudit(id, 'asked')] });
    const probe = new Database(path);
    expect(() => probe.exec("UPDATE audit SET decision = 'confirmed'")).toThrow(/append-only/);
    expect(() => probe.exec('DELETE FROM audit')).toThrow(/append-only/);
    probe.close();
    expect(await store.listAudit(id)).toStrictEqual([sampleAudit(id, 'asked')]);
    await store.close();
  });

  it('detects a conflict between two stores (two processes) on one file', async () => {
    const path = temporaryPath();
    const first = new SqliteSessionStore({ path });
    const second = new SqliteSessionStore({ path });
    const id = freshSessionId();
    await first.save(id, sampleState(id, 0), 0);
    const seen = await second.load(id);
    await first.save(id, sampleState(id, 1), 1);
    await expect(second.save(id, sampleState(id, 2), seen?.version ?? 0)).rejects.toThrow(
      StaleSessionError,
    );
    expect(await second.load(id)).toStrictEqual({ state: sampleState(id, 1), version: 2 });
    await first.close();
    await second.close();
  });

  it('works on a private in-memory database', async () => {
    const store = new SqliteSessionStore({ path: ':memory:' });
    const id = freshSessionId();
    expect(await store.save(id, sampleState(id), 0)).toBe(1);
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
    await store.close();
    await store.close();
  });
});
