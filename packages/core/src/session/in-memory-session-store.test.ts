import { describeSessionStoreConformance, sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import type { InMemoryMessageRow } from './in-memory-session-store.js';
import { InMemorySessionStore, emptySessionTables } from './in-memory-session-store.js';

const emptyTables = emptySessionTables;

describeSessionStoreConformance('InMemorySessionStore', async () => {
  const tables = emptyTables();
  const rowsOf = (sessionId: string): [number, InMemoryMessageRow][] =>
    [...(tables.messages.get(sessionId) ?? [])].sort(([a], [b]) => a - b);
  return {
    store: new InMemorySessionStore({ tables }),
    async messageVersions(sessionId) {
      return rowsOf(sessionId).map(([, row]) => row.writtenVersion);
    },
    async tamperMessage(sessionId, position, change) {
      const rows = tables.messages.get(sessionId);
      const row = rows?.get(position);
      if (rows === undefined || row === undefined) throw new Error('no such row');
      const text = change(row.text);
      if (text === undefined) rows.delete(position);
      else rows.set(position, { ...row, text });
    },
    async reopen() {
      return new InMemorySessionStore({ tables });
    },
    async corrupt(sessionId, rawText) {
      const version = tables.sessions.get(sessionId)?.version ?? 1;
      tables.sessions.set(sessionId, { state: rawText, version });
      tables.messages.delete(sessionId);
    },
    async readRaw(sessionId) {
      const stored = tables.sessions.get(sessionId);
      if (stored === undefined) return undefined;
      const rows = rowsOf(sessionId).map(([, row]) => row.text);
      return { text: [stored.state, ...rows].join('\n'), version: stored.version };
    },
    async close() {},
  };
});

describe('InMemorySessionStore', () => {
  it('works without options', async () => {
    const store = new InMemorySessionStore();
    expect(await store.load('nobody')).toBeUndefined();
    expect(await store.listAudit('nobody')).toStrictEqual([]);
  });

  it('lets two stores over the same tables see each other’s saves and conflicts', async () => {
    const tables = emptyTables();
    const first = new InMemorySessionStore({ tables });
    const second = new InMemorySessionStore({ tables });
    await first.save('s', sampleState('s'), 0);
    expect((await second.load('s'))?.version).toBe(1);
    await expect(second.save('s', sampleState('s'), 0)).rejects.toMatchObject({
      code: 'stale_session',
    });
  });
});
