import { freshSessionId, sampleState } from '@parley/core/conformance';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS, applyMigrations } from './migrations.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { useTemporaryDatabases } from './temporary-databases.js';

const temporaryPath = useTemporaryDatabases();

function synchronousOf(store: SqliteSessionStore): unknown {
  const connection: unknown = Reflect.get(store, 'database');
  if (!(connection instanceof Database)) throw new Error('no connection');
  return connection.pragma('synchronous', { simple: true });
}

describe('SqliteSessionStore deadlines and relaxed saves', () => {
  it('backfills the deadline column from the states of a version-2 database', async () => {
    const path = temporaryPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    applyMigrations(old, SQLITE_MIGRATIONS.slice(0, 2));
    const insert = old.prepare(
      "INSERT INTO sessions (id, version, state, updated_at) VALUES (?, 1, ?, 'then')",
    );
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
    insert.run(parked, withDeadline(parked, 'parked'));
    insert.run(running, withDeadline(running, 'running'));
    insert.run(corrupt, '{"reply": {"status": "parked", "deadl');
    old.close();
    const store = new SqliteSessionStore({ path });
    expect(await store.listDue('2030-01-01T00:00:00.000Z')).toStrictEqual([parked]);
    expect(await store.listDue('2029-12-31T23:59:59.999Z')).toStrictEqual([]);
    await store.close();
  });

  it('commits a relaxed save with synchronous NORMAL and goes back to FULL after it', async () => {
    const store = new SqliteSessionStore({ path: temporaryPath() });
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0, { relaxed: true });
    expect(synchronousOf(store)).toBe(1);
    await store.save(id, sampleState(id, 1), 1);
    expect(synchronousOf(store)).toBe(2);
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 1), version: 2 });
    await store.close();
  });

  it('stays NORMAL when opened NORMAL', async () => {
    const store = new SqliteSessionStore({ path: temporaryPath(), synchronous: 'NORMAL' });
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0, { relaxed: true });
    await store.save(id, sampleState(id, 1), 1);
    expect(synchronousOf(store)).toBe(1);
    await store.close();
  });
});
