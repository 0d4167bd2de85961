import { expect, it } from 'vitest';
import { InvalidStateError, StaleSessionError } from '../../errors/index.js';
import type { SessionStoreHarness } from './fixtures.js';
import { freshSessionId, sampleState } from './fixtures.js';

/** The rejection of `promise`, which must reject. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject, but it resolved.');
}

/** Expects `error` to be the `StaleSessionError` of a lost save. */
export function expectStale(
  error: unknown,
  sessionId: string,
  expectedVersion: number,
  actualVersion: number | undefined,
): void {
  expect(error).toBeInstanceOf(StaleSessionError);
  expect(error).toMatchObject({ code: 'stale_session', sessionId, expectedVersion, actualVersion });
}

const CORRUPT_TEXTS: [string, string][] = [
  ['not JSON', '{not json'],
  ['truncated JSON', JSON.stringify(sampleState('x')).slice(0, 40)],
  ['JSON null', 'null'],
  ['an unknown schema version', JSON.stringify({ ...sampleState('x'), schemaVersion: 999 })],
  ['empty text', ''],
];

/** Registers the cases about state, versions and concurrency. */
export function registerStateCases(current: () => SessionStoreHarness): void {
  it('loads a missing session as undefined', async () => {
    expect(await current().store.load(freshSessionId())).toBeUndefined();
  });

  it('creates a session with expectedVersion 0 and returns version 1', async () => {
    const id = freshSessionId();
    expect(await current().store.save(id, sampleState(id), 0)).toBe(1);
    expect((await current().store.load(id))?.version).toBe(1);
  });

  it('gives back a deep-equal state, not the object it was given', async () => {
    const { store } = current();
    const id = freshSessionId();
    const state = sampleState(id);
    await store.save(id, state, 0);
    state.context.length = 0;
    const loaded = await store.load(id);
    expect(loaded).toStrictEqual({ state: sampleState(id), version: 1 });
    expect(await store.load(id)).toStrictEqual(loaded);
  });

  it('hands each load a state of its own: changing one changes neither the store nor the next load', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0);
    const first = await store.load(id);
    first?.state.context.push({
      id: 'm9',
      name: 'user',
      role: 'user',
      content: 'x',
      createdAt: '',
    });
    const second = await store.load(id);
    expect(second?.state).not.toBe(first?.state);
    expect(second).toStrictEqual({ state: sampleState(id), version: 1 });
  });

  it('increments the version on every save and keeps the latest state', async () => {
    const { store } = current();
    const id = freshSessionId();
    for (let step = 0; step < 4; step += 1) {
      expect(await store.save(id, sampleState(id, step), step)).toBe(step + 1);
    }
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 3), version: 4 });
  });

  it('refuses a save with a wrong expectedVersion and keeps the stored state', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id, 0), 0);
    await store.save(id, sampleState(id, 1), 1);
    const before = await current().readRaw(id);
    for (const wrong of [1, 3, 7]) {
      expectStale(await rejectionOf(store.save(id, sampleState(id, 9), wrong)), id, wrong, 2);
    }
    expect(await current().readRaw(id)).toStrictEqual(before);
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 1), version: 2 });
  });

  it('refuses to create an existing session with expectedVersion 0', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id, 0), 0);
    expectStale(await rejectionOf(store.save(id, sampleState(id, 1), 0)), id, 0, 1);
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 0), version: 1 });
  });

  it('refuses a save of a missing session with expectedVersion above 0, creating nothing', async () => {
    const { store } = current();
    const id = freshSessionId();
    expectStale(await rejectionOf(store.save(id, sampleState(id), 1)), id, 1, undefined);
    expect(await store.load(id)).toBeUndefined();
  });

  it('treats an expectedVersion that is no version (negative, fractional, NaN) as stale', async () => {
    const { store } = current();
    const id = freshSessionId();
    const missing = freshSessionId('missing');
    await store.save(id, sampleState(id), 0);
    for (const wrong of [-1, 0.5, 1.5, Number.NaN]) {
      expectStale(await rejectionOf(store.save(id, sampleState(id, 1), wrong)), id, wrong, 1);
      const error = await rejectionOf(store.save(missing, sampleState(missing), wrong));
      expectStale(error, missing, wrong, undefined);
    }
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
    expect(await store.load(missing)).toBeUndefined();
  });

  it('lets exactly one of 10 concurrent creations win', async () => {
    const { store } = current();
    const id = freshSessionId();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, step) => store.save(id, sampleState(id, step), 0)),
    );
    const won = results.flatMap((result, step) => (result.status === 'fulfilled' ? [step] : []));
    expect(won).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(StaleSessionError);
      else expect(result.value).toBe(1);
    }
    expect(await store.load(id)).toStrictEqual({
      state: sampleState(id, won[0] ?? -1),
      version: 1,
    });
  });

  it('lets exactly one of 10 concurrent updates of the same version win', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id, 0), 0);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, step) => store.save(id, sampleState(id, step + 1), 1)),
    );
    const won = results.flatMap((result, step) => (result.status === 'fulfilled' ? [step] : []));
    expect(won).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expectStale(result.reason, id, 1, 2);
      else expect(result.value).toBe(2);
    }
    const winner = (won[0] ?? -1) + 1;
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id, winner), version: 2 });
  });

  it('keeps sessions apart', async () => {
    const { store } = current();
    const first = freshSessionId('first');
    const second = freshSessionId('second');
    await store.save(first, sampleState(first, 0), 0);
    await store.save(first, sampleState(first, 1), 1);
    expect(await store.load(second)).toBeUndefined();
    expect(await store.save(second, sampleState(second, 5), 0)).toBe(1);
    expect(await store.load(first)).toStrictEqual({ state: sampleState(first, 1), version: 2 });
    expect(await store.load(second)).toStrictEqual({ state: sampleState(second, 5), version: 1 });
  });

  for (const [what, text] of CORRUPT_TEXTS) {
    it(`refuses a stored state that is ${what}, naming the session, and leaves it alone`, async () => {
      const { store, corrupt, readRaw } = current();
      const id = freshSessionId();
      const other = freshSessionId('other');
      await store.save(id, sampleState(id), 0);
      await store.save(other, sampleState(other), 0);
      await corrupt(id, text);
      const error = await rejectionOf(store.load(id));
      expect(error).toBeInstanceOf(InvalidStateError);
      expect(error).toMatchObject({ code: 'invalid_state', sessionId: id });
      expect(await readRaw(id)).toStrictEqual({ text, version: 1 });
      expect(await store.load(other)).toStrictEqual({ state: sampleState(other), version: 1 });
    });
  }

  it('lets a save with the current version replace a corrupt state', async () => {
    const { store, corrupt } = current();
    const id = freshSessionId();
    await corrupt(id, '{"schemaVersion":');
    expectStale(await rejectionOf(store.save(id, sampleState(id), 0)), id, 0, 1);
    expect(await store.save(id, sampleState(id, 2), 1)).toBe(2);
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id, 2), version: 2 });
  });
}
