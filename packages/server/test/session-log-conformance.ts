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
import { EventFeed } from '../src/events/event-feed.js';
import { followEvents } from '../src/events/follow-events.js';
import { describeIdempotencyConformance } from './idempotency-conformance.js';
import type {
  ApiKeyRecord,
  ApiKeyStore,
  Approval,
  SessionLog,
  StoredEvent,
} from '../src/log/session-log.js';
import type { WaitingCall } from '../src/waiting/session-summary.js';

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

    it('refuses an append made after a number no longer the last, storing nothing of it', async () => {
      const log = await fresh();
      await log.append('s1', [event(1), event(2)], 2, { after: 0 });
      // A number above `after` stored since: refused.
      await expect(log.append('s1', [event(3)], 3, { after: 1 })).rejects.toBeInstanceOf(
        EventNumberTakenError,
      );
      // Numbers above it reserved (a stream's, shown and never stored): refused too.
      await log.append('s1', [], 66);
      await expect(log.append('s1', [event(3)], 3, { after: 2 })).rejects.toBeInstanceOf(
        EventNumberTakenError,
      );
      expect(await log.events('s1', 0, 10)).toEqual([event(1), event(2)]);
      expect(await log.lastSeq('s1')).toBe(66);
      await log.append('s1', [event(67)], 67, { after: 66 });
      expect(await log.events('s1', 2, 10)).toEqual([event(67)]);
      expect(await log.lastSeq('s1')).toBe(67);
    });

    it('refuses only the appends whose number moved, of several made together', async () => {
      const log = await fresh();
      await log.append('s1', [event(1)], 1);
      const outcomes = await Promise.allSettled([
        log.append('s1', [event(2)], 2, { after: 0 }),
        log.append('s2', [event(1)], 1, { after: 0 }),
        log.append('s3', [event(1), event(2)], 2),
        log.setWaiting('s1', [], 1),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'rejected',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      const [refused] = outcomes;
      expect(refused?.status === 'rejected' ? refused.reason : undefined).toBeInstanceOf(
        EventNumberTakenError,
      );
      expect(await log.events('s1', 0, 10)).toEqual([event(1)]);
      expect(await log.events('s2', 0, 10)).toEqual([event(1)]);
      expect(await log.events('s3', 0, 10)).toEqual([event(1), event(2)]);
    });

    it('refreshes the approvals index in the transaction of an append', async () => {
      const log = await fresh();
      await log.createSession({ id: 'a', owner: 'alice', createdAt: '2026-01-01' });
      const approval = (id: string): Approval => ({
        sessionId: 'a',
        replyId: 'r1',
        deadline: null,
        toolCall: call(id),
      });
      await log.append('a', [event(1)], 1, {
        waiting: { approvals: [approval('c1')], version: 3 },
      });
      expect(await log.listWaiting('alice')).toEqual([approval('c1')]);
      // From an older state: the events are stored, the index stays.
      await log.append('a', [event(2)], 2, { waiting: { approvals: [], version: 2 } });
      expect(await log.listWaiting('alice')).toEqual([approval('c1')]);
      // Refused: neither the events nor the refresh.
      const refused = log.append('a', [event(3)], 3, {
        after: 1,
        waiting: { approvals: [approval('c2')], version: 4 },
      });
      await expect(refused).rejects.toBeInstanceOf(EventNumberTakenError);
      expect(await log.listWaiting('alice')).toEqual([approval('c1')]);
      expect(await log.events('a', 0, 10)).toEqual([event(1), event(2)]);
      await log.append('a', [event(3)], 3, {
        after: 2,
        waiting: { approvals: [approval('c2'), approval('c3')], version: 4 },
      });
      expect(await log.listWaiting('alice')).toEqual([approval('c2'), approval('c3')]);
      await log.append('a', [], 3, { waiting: { approvals: [], version: 5 } });
      expect(await log.listWaiting('alice')).toEqual([]);
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
      await log.setWaiting('b', [approval('b', 'b1', null)], 1);
      await log.setWaiting('a', [approval('a', 'a2', '2026-03-01T00:00:00.000Z')], 1);
      await log.setWaiting('a', [approval('a', 'a2', null), approval('a', 'a1x', null)], 2);
      expect(await log.listWaiting(null)).toEqual([
        approval('a', 'a2', null),
        approval('a', 'a1x', null),
        approval('b', 'b1', null),
      ]);
      expect(await log.listWaiting('bob')).toEqual([approval('b', 'b1', null)]);
      expect(await log.listWaiting('carol')).toEqual([]);
      await log.setWaiting('a', [], 3);
      expect(await log.listWaiting('alice')).toEqual([]);
      expect(await log.listWaiting(null)).toEqual([approval('b', 'b1', null)]);
    });

    it('leaves the approvals index alone for a refresh from an older state', async () => {
      const log = await fresh();
      await log.createSession({ id: 'a', owner: 'alice', createdAt: '2026-01-01' });
      const approval = (replyId: string, id: string): Approval => ({
        sessionId: 'a',
        replyId,
        deadline: null,
        toolCall: call(id, 'confirm'),
      });
      // A reply parked at version 4 and was indexed; the refresh of the
      // reply before it (read at version 2, when that one had ended) comes late.
      await log.setWaiting('a', [approval('r2', 'c2')], 4);
      await log.setWaiting('a', [], 2);
      await log.setWaiting('a', [approval('r1', 'c1')], 3);
      expect(await log.listWaiting('alice')).toEqual([approval('r2', 'c2')]);
      // The same version again, or a later one, replaces it.
      await log.setWaiting('a', [approval('r2', 'c2'), approval('r2', 'c3')], 4);
      expect(await log.listWaiting('alice')).toEqual([approval('r2', 'c2'), approval('r2', 'c3')]);
      await log.setWaiting('a', [], 6);
      expect(await log.listWaiting('alice')).toEqual([]);
      await log.setWaiting('a', [approval('r2', 'c2')], 5);
      expect(await log.listWaiting('alice')).toEqual([]);
    });

    it('takes concurrent refreshes of one session in any order and keeps the latest state', async () => {
      const log = await fresh();
      const sessions = ['a', 'b', 'c', 'd', 'e'];
      for (const id of sessions) {
        await log.createSession({ id, owner: 'alice', createdAt: '2026-01-01' });
      }
      const waiting = (sessionId: string, version: number): Approval[] =>
        Array.from({ length: 1 + (version % 3) }, (_, index) => ({
          sessionId,
          replyId: `r${version}`,
          deadline: null,
          toolCall: call(`c${version}-${index}`, 'confirm'),
        }));
      // Each session refreshed from seven versions at once, in a different order.
      const orders = [
        [3, 7, 1, 6, 2, 5, 4],
        [7, 6, 5, 4, 3, 2, 1],
        [1, 2, 3, 4, 5, 6, 7],
        [4, 1, 7, 2, 6, 3, 5],
        [6, 3, 5, 7, 1, 4, 2],
      ];
      await Promise.all(
        sessions.flatMap((id, index) =>
          (orders[index] ?? []).map((version) => log.setWaiting(id, waiting(id, version), version)),
        ),
      );
      expect(await log.listWaiting('alice')).toEqual(sessions.flatMap((id) => waiting(id, 7)));
    });

    describeIdempotencyConformance(fresh);

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
