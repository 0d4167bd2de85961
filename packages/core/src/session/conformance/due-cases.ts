import { expect, it } from 'vitest';
import type { AgentState } from '../../state/index.js';
import type { SessionStoreHarness } from './fixtures.js';
import { freshSessionId, sampleState } from './fixtures.js';

/** `sampleState` parked with `deadline`, or with the reply as `status` says. */
function stateWith(
  sessionId: string,
  deadline: string | undefined,
  status: 'parked' | 'running' = 'parked',
): AgentState {
  const state = sampleState(sessionId);
  if (state.reply !== null) {
    state.reply.status = status;
    if (deadline !== undefined) state.reply.deadline = deadline;
  }
  return state;
}

/** Registers the cases about `listDue`: parked deadlines, found without reading states. */
export function registerDueCases(current: () => SessionStoreHarness): void {
  it('lists parked sessions whose deadline has passed, earliest first', async () => {
    const { store } = current();
    const late = freshSessionId('late');
    const early = freshSessionId('early');
    const future = freshSessionId('future');
    const none = freshSessionId('none');
    await store.save(late, stateWith(late, '2030-01-01T00:00:02.000Z'), 0);
    await store.save(early, stateWith(early, '2030-01-01T00:00:01.000Z'), 0);
    await store.save(future, stateWith(future, '2030-01-01T00:10:00.000Z'), 0);
    await store.save(none, stateWith(none, undefined), 0);
    const due = await store.listDue('2030-01-01T00:00:02.000Z');
    expect(due.filter((id) => [late, early, future, none].includes(id))).toStrictEqual([
      early,
      late,
    ]);
    expect(await store.listDue('2029-12-31T23:59:59.999Z')).not.toContain(early);
  });

  it('stops listing a session once a save resumes or ends its reply', async () => {
    const { store } = current();
    const id = freshSessionId();
    const deadline = '2030-01-01T00:00:00.000Z';
    const now = '2030-01-02T00:00:00.000Z';
    await store.save(id, stateWith(id, deadline), 0);
    expect(await store.listDue(now)).toContain(id);
    await store.save(id, stateWith(id, deadline, 'running'), 1);
    expect(await store.listDue(now)).not.toContain(id);
    await store.save(id, stateWith(id, deadline), 2);
    expect(await store.listDue(now)).toContain(id);
    await store.save(id, { ...sampleState(id), reply: null, context: [] }, 3);
    expect(await store.listDue(now)).not.toContain(id);
  });

  it('compares times, not texts, and ignores a deadline that is no time', async () => {
    const { store } = current();
    const offset = freshSessionId('offset');
    const garbage = freshSessionId('garbage');
    // 01:00 at +02:00 is 23:00 UTC the day before.
    await store.save(offset, stateWith(offset, '2030-01-02T01:00:00+02:00'), 0);
    await store.save(garbage, stateWith(garbage, 'tomorrow'), 0);
    expect(await store.listDue('2030-01-01T23:30:00.000Z')).toContain(offset);
    expect(await store.listDue('2030-01-01T22:30:00.000Z')).not.toContain(offset);
    expect(await store.listDue('9999-01-01T00:00:00.000Z')).not.toContain(garbage);
  });

  it('gives at most `limit` ids, and writes no deadline with a stale save', async () => {
    const { store } = current();
    const ids = [1, 2, 3].map((n) => freshSessionId(`limit${n}`));
    for (const [index, id] of ids.entries()) {
      await store.save(id, stateWith(id, `2031-01-01T00:00:0${index}.000Z`), 0);
    }
    const now = '2031-01-01T00:00:09.000Z';
    expect(await store.listDue(now, 2)).toStrictEqual(ids.slice(0, 2));
    expect(await store.listDue(now, 0)).toStrictEqual([]);
    const [first] = ids;
    if (first === undefined) throw new Error('no ids');
    await store.save(first, stateWith(first, undefined, 'running'), 1);
    await expect(
      store.save(first, stateWith(first, '2031-01-01T00:00:00.000Z'), 1),
    ).rejects.toThrow();
    expect(await store.listDue(now)).toStrictEqual(ids.slice(1));
  });
}
