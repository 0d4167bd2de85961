import { describeSessionStoreConformance, sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import type { InMemorySessionTables } from './in-memory-session-store.js';
import { InMemorySessionStore } from './in-memory-session-store.js';

function emptyTables(): InMemorySessionTables {
  return { sessions: new Map(), audit: new Map() };
}

describeSessionStoreConformance('InMemorySessionStore', async () => {
  const tables = emptyTables();
  return {
    store: new InMemorySessionStore({ tables }),
    async corrupt(sessionId, rawText) {
      const version = tables.sessions.get(sessionId)?.version ?? 1;
      tables.sessions.set(sessionId, { state: rawText, version });
    },
    async readRaw(sessionId) {
      const stored = tables.sessions.get(sessionId);
      return stored === undefined ? undefined : { text: stored.state, version: stored.version };
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
