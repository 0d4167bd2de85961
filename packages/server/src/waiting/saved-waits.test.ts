import { InMemorySessionStore, Sessions, StaleSessionError } from '@parley/core';
import type { SessionStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { noteAgent } from '../../test/support.js';
import { SavedWaits, approvalsOf } from './saved-waits.js';

describe('SavedWaits', () => {
  it("notes what each save's state waits on, with the version the save made, until taken", async () => {
    const store = new InMemorySessionStore();
    const saved = new SavedWaits();
    const sessions = new Sessions({ store: saved.observe(store), agent: noteAgent(new Map()) });
    for await (const event of sessions.replyStream('s1', 'Take a note')) void event;
    const parked = await store.load('s1');
    const noted = saved.take('s1');
    expect(noted).toEqual({
      version: parked?.version,
      approvals: approvalsOf('s1', parked?.state),
      indexed: false,
    });
    expect(noted?.approvals.map((approval) => approval.toolCall.name)).toEqual(['write_note']);
    expect(saved.take('s1')).toBeUndefined();
  });

  it('hands an append the refresh of the last save once, and marks only that one indexed', async () => {
    const store = new InMemorySessionStore();
    const saved = new SavedWaits();
    const observed = saved.observe(store);
    const sessions = new Sessions({ store: observed, agent: noteAgent(new Map()) });
    for await (const event of sessions.replyStream('s1', 'Take a note')) void event;
    const refresh = saved.pending('s1');
    expect(refresh?.version).toBe((await store.load('s1'))?.version);
    saved.indexed('s1', refresh!);
    expect(saved.pending('s1')).toBeUndefined();
    expect(saved.take('s1')).toMatchObject({ version: refresh?.version, indexed: true });

    // A save after the refresh was handed out: the refresh no longer marks anything.
    for await (const event of sessions.replyStream('s2', 'Take a note')) void event;
    const older = saved.pending('s2')!;
    const stored = (await store.load('s2'))!;
    await observed.save('s2', stored.state, stored.version);
    saved.indexed('s2', older);
    expect(saved.pending('s2')?.version).toBe(stored.version + 1);
    expect(saved.take('s2')).toMatchObject({ version: stored.version + 1, indexed: false });
  });

  it('notes nothing for a refused save, and keeps the optional methods the store has', async () => {
    const store = new InMemorySessionStore();
    const saved = new SavedWaits();
    const observed = saved.observe(store);
    const sessions = new Sessions({ store, agent: noteAgent(new Map()) });
    for await (const event of sessions.replyStream('s1', 'Take a note')) void event;
    const stored = await store.load('s1');
    if (stored === undefined) throw new Error('not stored');
    await expect(observed.save('s1', stored.state, stored.version - 1)).rejects.toBeInstanceOf(
      StaleSessionError,
    );
    expect(saved.take('s1')).toBeUndefined();
    expect(await observed.listDue?.('2999-01-01T00:00:00.000Z')).toEqual(
      await store.listDue('2999-01-01T00:00:00.000Z'),
    );
    expect(await observed.listAudit?.('s1')).toEqual(await store.listAudit('s1'));
    expect(typeof observed.renewLease).toBe('function');
    const bare: SessionStore = {
      load: (id) => store.load(id),
      save: (...args) => store.save(...args),
    };
    const observedBare = saved.observe(bare);
    expect('listDue' in observedBare || 'renewLease' in observedBare).toBe(false);
  });
});
