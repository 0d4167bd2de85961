// One suite for every SessionLog + ApiKeyStore: the SQLite log runs it in
// sqlite-server-log.test.ts, the Postgres log in postgres-server-log.int.test.ts.
import { InvalidInputError } from '@parley/core';
import {
  replyStartEvent,
  textBlockDeltaEvent,
  textBlockEndEvent,
  textBlockStartEvent,
} from '@parley/core';
import type { AgentEvent } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EventNumberTakenError } from '../src/errors.js';
import { EventFeed } from '../src/event-feed.js';
import { followEvents } from '../src/follow.js';
import type {
  ApiKeyRecord,
  ApiKeyStore,
  Approval,
  SessionLog,
  StoredEvent,
} from '../src/server-log.js';
import type { WaitingCall } from '../src/session-summary.js';

/** A log under test, and how to let go of it. */
export type LogUnderTest = { log: SessionLog & ApiKeyStore; close: () => Promise<void> };

/** A text reply of session `sessionId`: REPLY_START, a text block of `deltas` deltas, its end. */
export function* textReply(sessionId: string, deltas: number): Generator<AgentEvent> {
  const replyId = `r-${sessionId}`;
  yield replyStartEvent({ sessionId, replyId, name: 'assistant', role: 'assistant' });
  yield textBlockStartEvent({ replyId, blockId: 'b1' });
  for (let index = 0; index < deltas; index += 1) {
    yield textBlockDeltaEvent({ replyId, blockId: 'b1', delta: `t${index} ` });
  }
  yield textBlockEndEvent({ replyId, blockId: 'b1' });
}

/**
 * `events` one at a time, each a turn of the event loop after the one
 * before, as a runner streaming a model's answer gives them (events at hand
 * together are stored together: `EventFeed`).
 */
export async function* live(events: Iterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  for (const event of events) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    yield event;
  }
}

/** Every item of `events`. */
export async function drain<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const event = (seq: number, text = `e${seq}`): StoredEvent => ({
  seq,
  type: 'CUSTOM',
  data: JSON.stringify({ type: 'CUSTOM', text }),
});

const call = (id: string, awaiting: WaitingCall['awaiting'] = 'confirm'): WaitingCall => ({
  type: 'tool_call',
  id,
  name: 'write_note',
  input: '{"text":"hi"}',
  state: awaiting === 'confirm' ? 'asking' : 'submitted',
  suggestedRules: [],
  awaiting,
});

const key = (id: string, createdAt: string, roles: string[] = []): ApiKeyRecord => ({
  id,
  principal: `p-${id}`,
  roles,
  secretHash: `hash-${id}`,
  createdAt,
  revokedAt: null,
});

/**
 * Registers the conformance tests of a `SessionLog` + `ApiKeyStore`.
 * `open` gives a fresh, empty log for each test.
 */
export function describeSessionLogConformance(
  name: string,
  open: () => Promise<LogUnderTest>,
): void {
  describe(`${name} (SessionLog conformance)`, () => {
    const opened: LogUnderTest[] = [];
    const fresh = async () => {
      const underTest = await open();
      opened.push(underTest);
      return underTest.log;
    };
    afterEach(async () => {
      for (const underTest of opened.splice(0)) await underTest.close();
    });

    it('records sessions once, and refuses an id again with nothing changed', async () => {
      const log = await fresh();
      const record = { id: 's1', owner: 'alice', createdAt: '2026-01-01T00:00:00.000Z' };
      await log.createSession(record);
      expect(await log.session('s1')).toEqual(record);
      await expect(
        log.createSession({ ...record, owner: 'mallory', createdAt: '2026-02-02T00:00:00.000Z' }),
      ).rejects.toBeInstanceOf(InvalidInputError);
      expect(await log.session('s1')).toEqual(record);
      expect(await log.session('nope')).toBeUndefined();
    });

    it('lists sessions newest first, by owner, a page at a time', async () => {
      const log = await fresh();
      for (let index = 0; index < 5; index += 1) {
        const owner = index % 2 === 0 ? 'alice' : 'bob';
        await log.createSession({ id: `s${index}`, owner, createdAt: `2026-01-0${index + 1}` });
      }
      const first = await log.listSessions('alice', { limit: 2 });
      expect(first.sessions.map((session) => session.id)).toEqual(['s4', 's2']);
      expect(first.next).not.toBeNull();
      const second = await log.listSessions('alice', { limit: 2, cursor: first.next ?? '' });
      expect(second.sessions.map((session) => session.id)).toEqual(['s0']);
      expect(second.next).toBeNull();
      const everyone = await log.listSessions(null, { limit: 10 });
      expect(everyone.sessions.map((session) => session.id)).toEqual([
        's4',
        's3',
        's2',
        's1',
        's0',
      ]);
      await expect(log.listSessions(null, { limit: 2, cursor: 'x; DROP' })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it('stores events in order, reads them after a number, and counts reservations', async () => {
      const log = await fresh();
      expect(await log.lastSeq('s1')).toBe(0);
      await log.append('s1', [event(1), event(2)], 2);
      await log.append('s1', [event(3)], 66);
      expect(await log.lastSeq('s1')).toBe(66);
      await log.append('s1', [event(4), event(5)], 5);
      expect(await log.lastSeq('s1')).toBe(5);
      expect(await log.events('s1', 0, 100)).toEqual([1, 2, 3, 4, 5].map((seq) => event(seq)));
      expect(await log.events('s1', 2, 2)).toEqual([event(3), event(4)]);
      expect(await log.events('s1', 5, 10)).toEqual([]);
      expect(await log.events('s2', 0, 10)).toEqual([]);
      // A reservation alone, with no events.
      await log.append('s2', [], 64);
      expect(await log.lastSeq('s2')).toBe(64);
      expect(await log.events('s2', 0, 10)).toEqual([]);
    });

    it('refuses an append that reuses a number, storing nothing of it', async () => {
      const log = await fresh();
      await log.append('s1', [event(1), event(2)], 2);
      await expect(log.append('s1', [event(2, 'again'), event(3)], 70)).rejects.toBeInstanceOf(
        EventNumberTakenError,
      );
      expect(await log.events('s1', 0, 10)).toEqual([event(1), event(2)]);
      expect(await log.lastSeq('s1')).toBe(2);
    });

    it('keeps the approvals index per session, replaced whole, oldest session first', async () => {
      const log = await fresh();
      await log.createSession({ id: 'a', owner: 'alice', createdAt: '2026-01-01' });
      await log.createSession({ id: 'b', owner: 'bob', createdAt: '2026-01-02' });
      const approval = (sessionId: string, id: string, deadline: string | null): Approval => ({
        sessionId,
        replyId: `r-${sessionId}`,
        deadline,
        toolCall: call(id, id.endsWith('x') ? 'external' : 'confirm'),
      });
      await log.setWaiting('b', [approval('b', 'b1', null)]);
      await log.setWaiting('a', [approval('a', 'a2', '2026-03-01T00:00:00.000Z')]);
      await log.setWaiting('a', [approval('a', 'a2', null), approval('a', 'a1x', null)]);
      expect(await log.listWaiting(null)).toEqual([
        approval('a', 'a2', null),
        approval('a', 'a1x', null),
        approval('b', 'b1', null),
      ]);
      expect(await log.listWaiting('bob')).toEqual([approval('b', 'b1', null)]);
      expect(await log.listWaiting('carol')).toEqual([]);
      await log.setWaiting('a', []);
      expect(await log.listWaiting('alice')).toEqual([]);
      expect(await log.listWaiting(null)).toEqual([approval('b', 'b1', null)]);
    });

    it('claims an idempotency key once per principal, settles and releases it', async () => {
      const log = await fresh();
      const request = claimOf('k1', 'h1', 'c1', NOW + 1000);
      expect(await log.claimIdempotency(request, NOW)).toBeUndefined();
      expect(await log.claimIdempotency({ ...request, requestHash: 'h2' }, NOW)).toEqual(request);
      expect(await log.claimIdempotency({ ...request, principal: 'bob' }, NOW)).toBeUndefined();
      const settled = { ...request, after: 3, lastSeq: 9, response: '{"ok":true}' };
      await log.settleIdempotency(settled);
      expect(await log.claimIdempotency({ ...request, claimId: 'c2' }, NOW)).toEqual(settled);
      // Another claim id neither releases nor settles it.
      await log.releaseIdempotency({ ...request, claimId: 'c2' });
      expect(await log.claimIdempotency({ ...request, claimId: 'c2' }, NOW)).toEqual(settled);
      await log.releaseIdempotency(request);
      const again = claimOf('k1', 'h3', 'c3', NOW + 1000);
      expect(await log.claimIdempotency(again, NOW)).toBeUndefined();
    });

    it('gives one of many concurrent claims of a key the claim', async () => {
      const log = await fresh();
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          log.claimIdempotency(claimOf('race', `h${index}`, `c${index}`, NOW + 1000), NOW),
        ),
      );
      expect(claims.filter((claim) => claim === undefined)).toHaveLength(1);
      const winner = claims.findIndex((claim) => claim === undefined);
      for (const claim of claims) {
        if (claim !== undefined) expect(claim.requestHash).toBe(`h${winner}`);
      }
    });

    it('takes over a claim whose hold is over, and only the same request', async () => {
      const log = await fresh();
      const dead = claimOf('k', 'h', 'dead', NOW + 1000);
      expect(await log.claimIdempotency(dead, NOW)).toBeUndefined();
      const later = NOW + 5000;
      // Another request under the key never takes it: 422 as before.
      const other = claimOf('k', 'other', 'x', later + 1000);
      expect(await log.claimIdempotency(other, later)).toEqual(dead);
      const retry = claimOf('k', 'h', 'retry', later + 1000);
      expect(await log.claimIdempotency(retry, later)).toBeUndefined();
      // The dead holder's claim id no longer renews, settles or releases it.
      expect(await log.renewIdempotency({ ...dead, heldUntil: later + 9000 })).toBe(false);
      await log.settleIdempotency({ ...dead, after: 0, lastSeq: 1, response: '"dead"' });
      await log.releaseIdempotency(dead);
      expect(await log.claimIdempotency(claimOf('k', 'h', 'y', later + 1000), later)).toEqual(
        retry,
      );
      expect(await log.renewIdempotency({ ...retry, heldUntil: later + 2000 })).toBe(true);
      const settled = { ...retry, heldUntil: later + 2000, after: 2, lastSeq: 4, response: '"ok"' };
      await log.settleIdempotency(settled);
      // A settled claim is given again, never taken over, however old.
      expect(await log.claimIdempotency(claimOf('k', 'h', 'z', NOW * 2), NOW * 2)).toEqual(settled);
      expect(await log.renewIdempotency({ ...retry, heldUntil: later + 3000 })).toBe(false);
    });

    it('does not take over a claim that is still held, renewed or not yet over', async () => {
      const log = await fresh();
      const live = claimOf('k', 'h', 'live', NOW + 1000);
      expect(await log.claimIdempotency(live, NOW)).toBeUndefined();
      expect(await log.claimIdempotency(claimOf('k', 'h', 'a', NOW + 2000), NOW + 999)).toEqual(
        live,
      );
      expect(await log.renewIdempotency({ ...live, heldUntil: NOW + 4000 })).toBe(true);
      const renewed = { ...live, heldUntil: NOW + 4000 };
      expect(await log.claimIdempotency(claimOf('k', 'h', 'b', NOW + 5000), NOW + 3000)).toEqual(
        renewed,
      );
    });

    it('gives an abandoned claim to one of many concurrent retries', async () => {
      const log = await fresh();
      expect(await log.claimIdempotency(claimOf('k', 'h', 'dead', NOW), NOW)).toBeUndefined();
      const later = NOW + 10_000;
      const takers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          log.claimIdempotency(claimOf('k', 'h', `t${index}`, later + 1000), later),
        ),
      );
      expect(takers.filter((taken) => taken === undefined)).toHaveLength(1);
      const winner = takers.findIndex((taken) => taken === undefined);
      for (const taken of takers) {
        if (taken !== undefined) expect(taken.claimId).toBe(`t${winner}`);
      }
    });

    it('keeps API keys: found by id, listed oldest first, revoked once', async () => {
      const log = await fresh();
      await log.addKey(key('k2', '2026-01-02T00:00:00.000Z', ['approver']));
      await log.addKey(key('k1', '2026-01-01T00:00:00.000Z'));
      expect(await log.findKey('k2')).toEqual(key('k2', '2026-01-02T00:00:00.000Z', ['approver']));
      expect(await log.findKey('nope')).toBeUndefined();
      expect((await log.listKeys()).map((record) => record.id)).toEqual(['k1', 'k2']);
      expect(await log.revokeKey('k1', '2026-02-01T00:00:00.000Z')).toBe(true);
      expect(await log.revokeKey('k1', '2026-02-02T00:00:00.000Z')).toBe(false);
      expect(await log.revokeKey('nope', '2026-02-02T00:00:00.000Z')).toBe(false);
      expect((await log.findKey('k1'))?.revokedAt).toBe('2026-02-01T00:00:00.000Z');
    });

    it('numbers a recorded reply from 1 and stores every event of it', async () => {
      const log = await fresh();
      const recorded = await drain(new EventFeed(log).record('s1', live(textReply('s1', 200))));
      expect(recorded.map((stored) => stored.seq)).toEqual(recorded.map((_, index) => index + 1));
      expect(await log.events('s1', 0, 1000)).toEqual(recorded);
      expect(await log.lastSeq('s1')).toBe(203);
    });

    it('never hands out a number twice after a crash mid-stream', async () => {
      const log = await fresh();
      const crashed = new EventFeed(log).record('s1', live(textReply('s1', 10)));
      const shown: number[] = [];
      for (let step = 0; step < 7; step += 1) {
        const next = await crashed.next();
        if (next.done === true) throw new Error('ended early');
        shown.push(next.value.seq);
      }
      // The process dies here: the generator is never finished, nothing more is written.
      const stored = await log.events('s1', 0, 100);
      expect(stored.map((stored) => stored.seq)).toEqual([1, 2, 3]);
      const restarted = await drain(new EventFeed(log).record('s1', live(textReply('s1', 0))));
      expect(Math.min(...restarted.map((stored) => stored.seq))).toBeGreaterThan(
        Math.max(...shown),
      );
      const follower = new AbortController();
      const followed: number[] = [];
      for await (const stored of followEvents(
        log,
        new EventFeed(log),
        's1',
        0,
        follower.signal,
        Promise.resolve(restarted.at(-1)?.seq ?? 0),
      )) {
        followed.push(stored.seq);
      }
      expect(followed).toEqual([1, 2, 3, ...restarted.map((stored) => stored.seq)]);
    });
  });
}

/** A moment to measure claims' holds from (epoch ms). */
const NOW = Date.parse('2026-01-01T00:00:00.000Z');

/** An unsettled claim of `key` by alice. */
function claimOf(key: string, requestHash: string, claimId: string, heldUntil: number) {
  return {
    principal: 'alice',
    key,
    requestHash,
    claimId,
    heldUntil,
    after: null,
    lastSeq: null,
    response: null,
  };
}
