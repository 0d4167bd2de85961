import { expect, it } from 'vitest';
import { InvalidStateError } from '../../errors/index.js';
import type { Msg } from '../../message/index.js';
import type { SessionStoreHarness } from './fixtures.js';
import { freshSessionId, historyState, sampleState } from './fixtures.js';
import { rejectionOf } from './state-cases.js';

/** `state` with one more user message at the end. */
const withMessage = <T extends { context: Msg[] }>(state: T, text: string): T => ({
  ...state,
  context: [
    ...state.context,
    { id: text, name: 'user', role: 'user', content: text, createdAt: '2025-01-02T03:04:05.006Z' },
  ],
});

/** Registers the cases about message rows: what a save writes, what a load refuses. */
export function registerHistoryCases(current: () => SessionStoreHarness): void {
  it('writes only the message rows that are new or changed', async () => {
    const { store, messageVersions } = current();
    const id = freshSessionId();
    await store.save(id, historyState(id, 3), 0);
    expect(await messageVersions(id)).toStrictEqual([1, 1, 1, 1, 1, 1]);
    // The last answer changes and a message is added: two rows written.
    await store.save(id, withMessage(historyState(id, 3, 1), 'next'), 1);
    expect(await messageVersions(id)).toStrictEqual([1, 1, 1, 1, 1, 2, 2]);
    // Nothing in the messages changes: no row written.
    await store.save(id, withMessage(historyState(id, 3, 1), 'next'), 2);
    expect(await messageVersions(id)).toStrictEqual([1, 1, 1, 1, 1, 2, 2]);
    expect(await store.load(id)).toStrictEqual({
      state: withMessage(historyState(id, 3, 1), 'next'),
      version: 3,
    });
  });

  it('drops the rows of messages a save no longer has', async () => {
    const { store, messageVersions } = current();
    const id = freshSessionId();
    await store.save(id, historyState(id, 3), 0);
    await store.save(id, historyState(id, 1, 2), 1);
    expect(await messageVersions(id)).toStrictEqual([1, 2]);
    expect(await store.load(id)).toStrictEqual({ state: historyState(id, 1, 2), version: 2 });
    const other = await current().reopen();
    expect(await other.load(id)).toStrictEqual({ state: historyState(id, 1, 2), version: 2 });
  });

  it('keeps the last message of a save that drops the messages after it', async () => {
    const { store } = current();
    const id = freshSessionId();
    const state = historyState(id, 2);
    await store.save(id, state, 0);
    // The same message objects, one fewer: the new last one was saved before, not as the last.
    const shorter = { ...state, context: state.context.slice(0, 3) };
    await store.save(id, shorter, 1);
    expect(await store.load(id)).toStrictEqual({ state: shorter, version: 2 });
    const other = await current().reopen();
    expect(await other.load(id)).toStrictEqual({ state: shorter, version: 2 });
  });

  it('gives another process the state saved, and sees that process’s saves', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, historyState(id, 4), 0);
    expect((await store.load(id))?.version).toBe(1);
    const other = await current().reopen();
    const loaded = await other.load(id);
    expect(loaded).toStrictEqual({ state: historyState(id, 4), version: 1 });
    if (loaded === undefined) throw new Error('not loaded');
    await other.save(id, withMessage(loaded.state, 'from the other'), 1);
    expect(await store.load(id)).toStrictEqual({
      state: withMessage(historyState(id, 4), 'from the other'),
      version: 2,
    });
    await store.save(id, historyState(id, 2, 5), 2);
    expect(await other.load(id)).toStrictEqual({ state: historyState(id, 2, 5), version: 3 });
  });

  it('refuses a message a save is given that is no message, writing nothing', async () => {
    const { store } = current();
    const id = freshSessionId();
    const state = historyState(id, 2);
    const bad: unknown = { id: 'x', role: 'user', content: 42 };
    const context: unknown[] = [...state.context, bad];
    Reflect.set(state, 'context', context);
    const error = await rejectionOf(store.save(id, state, 0));
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(error).toMatchObject({ sessionId: id });
    expect(String(error)).toContain('context.4');
    expect(await store.load(id)).toBeUndefined();
  });

  const tampering: [string, (text: string) => string | undefined][] = [
    ['changed', (text) => text.replace('Read file', 'Wipe file')],
    ['deleted', () => undefined],
    ['made into other valid JSON', () => JSON.stringify({ id: 'u1', role: 'user' })],
  ];
  for (const [what, change] of tampering) {
    it(`refuses, in another process, a session whose message row was ${what} behind its back`, async () => {
      const { store, readRaw, tamperMessage } = current();
      const id = freshSessionId();
      const other = freshSessionId('other');
      await store.save(id, historyState(id, 2), 0);
      await store.save(other, historyState(other, 2), 0);
      await tamperMessage(id, 2, change);
      const before = await readRaw(id);
      const fresh = await current().reopen();
      const error = await rejectionOf(fresh.load(id));
      expect(error).toBeInstanceOf(InvalidStateError);
      expect(error).toMatchObject({ code: 'invalid_state', sessionId: id });
      expect(await readRaw(id)).toStrictEqual(before);
      expect(await fresh.load(other)).toStrictEqual({
        state: historyState(other, 2),
        version: 1,
      });
    });
  }

  it('hands each load its own last message, sharing none that a caller changes', async () => {
    const { store } = current();
    const id = freshSessionId();
    await store.save(id, sampleState(id), 0);
    const first = await store.load(id);
    const reply = first?.state.context.at(-1);
    if (reply === undefined || typeof reply.content === 'string') throw new Error('no reply');
    reply.content.push({ type: 'text', text: 'changed in place' });
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
  });
}
