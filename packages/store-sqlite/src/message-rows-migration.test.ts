import { InvalidStateError } from '@parley/core';
import { freshSessionId, historyState, sampleState } from '@parley/core/conformance';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS, applyMigrations } from './migrations.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { useTemporaryDatabases } from './temporary-databases.js';

const temporaryPath = useTemporaryDatabases();

/** A database file migrated to version 5 (whole states in `sessions.state`) holding these states. */
function versionFiveDatabase(path: string, states: Map<string, string>): void {
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  applyMigrations(old, SQLITE_MIGRATIONS.slice(0, 5));
  const session = old.prepare(
    "INSERT INTO sessions (id, version, state, updated_at) VALUES (?, 3, ?, 'then')",
  );
  for (const [id, text] of states) session.run(id, text);
  old.close();
}

describe('SqliteSessionStore message rows (migration 6)', () => {
  it('loads sessions stored whole by the version-5 schema, and moves each to rows on its next save', async () => {
    const path = temporaryPath();
    const long = freshSessionId('long');
    const parked = freshSessionId('parked');
    const broken = freshSessionId('broken');
    versionFiveDatabase(
      path,
      new Map([
        [long, JSON.stringify(historyState(long, 20))],
        [parked, JSON.stringify(sampleState(parked, 1))],
        [broken, '{"schemaVersion":'],
      ]),
    );
    const store = new SqliteSessionStore({ path });
    expect(await store.load(long)).toStrictEqual({ state: historyState(long, 20), version: 3 });
    expect(await store.load(parked)).toStrictEqual({ state: sampleState(parked, 1), version: 3 });
    await expect(store.load(broken)).rejects.toBeInstanceOf(InvalidStateError);

    expect(await store.save(long, historyState(long, 21), 3)).toBe(4);
    await store.close();
    const probe = new Database(path, { readonly: true });
    const head = probe
      .prepare<[string], { state: string; message_count: number }>(
        'SELECT state, message_count FROM sessions WHERE id = ?',
      )
      .get(long);
    const rows = probe
      .prepare<[string], { n: number }>(
        'SELECT count(*) AS n FROM session_messages WHERE session_id = ?',
      )
      .get(long);
    const untouched = probe
      .prepare<[string], { state: string; message_count: number | null }>(
        'SELECT state, message_count FROM sessions WHERE id = ?',
      )
      .get(broken);
    probe.close();
    expect(head?.message_count).toBe(42);
    expect(head?.state).not.toContain('"context"');
    expect(rows?.n).toBe(42);
    expect(untouched).toStrictEqual({ state: '{"schemaVersion":', message_count: null });

    const reopened = new SqliteSessionStore({ path });
    expect(await reopened.load(long)).toStrictEqual({ state: historyState(long, 21), version: 4 });
    expect(await reopened.load(parked)).toStrictEqual({
      state: sampleState(parked, 1),
      version: 3,
    });
    await reopened.close();
  });

  it('keeps a session served here in its cache and reads no rows when nothing changed', async () => {
    const path = temporaryPath();
    const id = freshSessionId();
    const store = new SqliteSessionStore({ path });
    await store.save(id, historyState(id, 50), 0);
    const first = await store.load(id);
    const second = await store.load(id);
    // Messages before the last are shared with the cache; the last is each load's own.
    expect(second?.state.context[0]).toBe(first?.state.context[0]);
    expect(second?.state.context.at(-1)).not.toBe(first?.state.context.at(-1));
    expect(second).toStrictEqual({ state: historyState(id, 50), version: 1 });
    await store.close();
    const uncached = new SqliteSessionStore({ path, cacheBytes: 0 });
    const third = await uncached.load(id);
    expect(third?.state.context[0]).not.toBe(first?.state.context[0]);
    expect(third).toStrictEqual({ state: historyState(id, 50), version: 1 });
    await uncached.close();
  });
});
