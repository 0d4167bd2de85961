import { expect, it } from 'vitest';
import { InvalidInputError } from '../../errors/index.js';
import type { SessionStoreHarness } from './fixtures.js';
import { freshSessionId, sampleState } from './fixtures.js';

const LEASE = '2030-01-01T00:00:30.000Z';
const LATER = '2030-01-01T00:01:00.000Z';

/** Registers the cases about leases: set by a save, renewed without a new version. */
export function registerLeaseCases(current: () => SessionStoreHarness): void {
  it('gives back the lease a save set, until a save without one clears it', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0);
    expect((await store.load(id))?.leaseUntil).toBeUndefined();
    await store.save(id, sampleState(id, 1), 1, { leaseUntil: LEASE, relaxed: true });
    expect(await store.load(id)).toMatchObject({ version: 2, leaseUntil: LEASE });
    await store.save(id, sampleState(id, 2), 2);
    expect((await store.load(id))?.leaseUntil).toBeUndefined();
  });

  it('renews a lease only at the version given, leaving the state and version alone', async () => {
    const { store, readRaw } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0, { leaseUntil: LEASE });
    const before = await readRaw(id);
    expect(await store.renewLease(id, 1, LATER)).toBe(true);
    expect(await store.load(id)).toMatchObject({ version: 1, leaseUntil: LATER });
    expect(await readRaw(id)).toStrictEqual(before);
    expect(await store.renewLease(id, 2, LEASE)).toBe(false);
    expect((await store.load(id))?.leaseUntil).toBe(LATER);
    const unknown = freshSessionId('unknown');
    expect(await store.renewLease(unknown, 1, LEASE)).toBe(false);
    expect(await store.load(unknown)).toBeUndefined();
  });

  it('keeps the lease when a stale save is refused', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0, { leaseUntil: LEASE });
    await expect(store.save(id, sampleState(id, 1), 0, { leaseUntil: LATER })).rejects.toThrow();
    await expect(store.save(id, sampleState(id, 1), 7)).rejects.toThrow();
    expect(await store.load(id)).toMatchObject({ version: 1, leaseUntil: LEASE });
  });

  it('refuses a lease that is no time, writing nothing, and keeps leases in ISO form', async () => {
    const { store, readRaw } = current();
    const id = freshSessionId();
    await expect(store.save(id, sampleState(id), 0, { leaseUntil: 'soon' })).rejects.toThrow(
      InvalidInputError,
    );
    expect(await readRaw(id)).toBeUndefined();
    await store.save(id, sampleState(id), 0, { leaseUntil: '2030-01-01T01:00:30+01:00' });
    expect((await store.load(id))?.leaseUntil).toBe(LEASE);
    await expect(store.renewLease(id, 1, 'later')).rejects.toThrow(InvalidInputError);
    expect((await store.load(id))?.leaseUntil).toBe(LEASE);
  });
}
