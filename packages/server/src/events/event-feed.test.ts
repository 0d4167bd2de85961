import {
  replyStartEvent,
  requireUserConfirmEvent,
  textBlockDeltaEvent,
  textBlockEndEvent,
  textBlockStartEvent,
} from '@parley/core';
import type { AgentEvent } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { EventFeed } from './event-feed.js';
import { followEvents } from './follow-events.js';
import type { StoredEvent } from '../log/session-log.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

const replyId = 'r1';

/** A text reply: REPLY_START, a text block of `deltas` deltas, its end. */
function* textReply(deltas: number): Generator<AgentEvent> {
  yield replyStartEvent({ sessionId: 's1', replyId, name: 'assistant', role: 'assistant' });
  yield textBlockStartEvent({ replyId, blockId: 'b1' });
  for (let index = 0; index < deltas; index += 1) {
    yield textBlockDeltaEvent({ replyId, blockId: 'b1', delta: `t${index} ` });
  }
  yield textBlockEndEvent({ replyId, blockId: 'b1' });
}

/** `events` one at a time, each a turn of the event loop after the one before. */
async function* live(events: Iterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  for (const event of events) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    yield event;
  }
}

/** `events` all at hand: each follows the one before through promises only. */
async function* atHand(events: Iterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  for (const event of events) yield await Promise.resolve(event);
}

/** A SQLite log that counts its appends (its commits). */
class CountingLog extends SqliteServerLog {
  appends = 0;

  override append(
    sessionId: string,
    events: readonly StoredEvent[],
    reserved: number,
  ): Promise<void> {
    this.appends += 1;
    return super.append(sessionId, events, reserved);
  }
}

/** A SQLite log that notes from where each read of events began. */
class ReadCountingLog extends SqliteServerLog {
  reads: number[] = [];

  override events(sessionId: string, after: number, limit: number): Promise<StoredEvent[]> {
    this.reads.push(after);
    return super.events(sessionId, after, limit);
  }
}

async function drain(events: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('EventFeed', () => {
  it('numbers events from 1, stores them all, and commits per step, not per token', async () => {
    const log = new CountingLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    const recorded = await drain(feed.record('s1', live(textReply(200))));
    expect(recorded.map((event) => event.seq)).toEqual(recorded.map((_, index) => index + 1));
    expect(await log.events('s1', 0, 1000)).toEqual(recorded);
    expect(await log.lastSeq('s1')).toBe(203);
    // REPLY_START, TEXT_BLOCK_START, ceil(200 / 64) reservations, TEXT_BLOCK_END, the end.
    expect(log.appends).toBe(2 + 4 + 1 + 1);
    const next = await drain(feed.record('s1', live(textReply(1))));
    expect(next[0]?.seq).toBe(204);
  });

  it('stores the events a runner has at hand after the first in one append, shown after it', async () => {
    const log = new CountingLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    const shown: { seq: number; stored: number }[] = [];
    const subscription = feed.subscribe('s1', (event) => {
      shown.push({ seq: event.seq, stored: log.appends });
    });
    const recorded = await drain(feed.record('s1', atHand(textReply(3))));
    subscription.unsubscribe();
    expect(recorded.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    // The first event alone (the reply's stream opens on it), then the rest together.
    expect(log.appends).toBe(2);
    expect(shown).toEqual(
      recorded.map((event) => ({ seq: event.seq, stored: event.seq === 1 ? 1 : 2 })),
    );
    expect(await log.events('s1', 0, 100)).toEqual(recorded);
    expect(await log.lastSeq('s1')).toBe(6);
  });

  it('stores and yields the events at hand before a runner failure, then throws it', async () => {
    const log = new CountingLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    async function* failing(): AsyncGenerator<AgentEvent> {
      yield* atHand(textReply(2));
      throw new Error('the model went away');
    }
    const recorded: StoredEvent[] = [];
    const failure = await (async () => {
      for await (const event of feed.record('s1', failing())) recorded.push(event);
    })().catch((error: unknown) => error);
    expect(failure).toEqual(new Error('the model went away'));
    expect(recorded.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await log.events('s1', 0, 100)).toEqual(recorded);
    expect(await log.lastSeq('s1')).toBe(5);
    // The session is free again.
    expect((await drain(feed.record('s1', atHand(textReply(0)))))[0]?.seq).toBe(6);
  });

  it("stores and shows a reply's last event before asking the runner for more", async () => {
    const log = new CountingLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    const asked: number[] = [];
    async function* parking(): AsyncGenerator<AgentEvent> {
      yield replyStartEvent({ sessionId: 's1', replyId, name: 'assistant', role: 'assistant' });
      yield requireUserConfirmEvent({ replyId, toolCalls: [] });
      // The runner lets go of the session once asked past its last event.
      asked.push(log.appends);
    }
    const recorded = await drain(feed.record('s1', parking()));
    expect(recorded.map((event) => event.type)).toEqual(['REPLY_START', 'REQUIRE_USER_CONFIRM']);
    expect(asked).toEqual([2]);
  });

  it('gives a follower every event once, in order: stored, then pending, then live', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    await drain(feed.record('s1', live(textReply(3))));
    const controller = new AbortController();
    const recording = feed.record('s1', live(textReply(100)));
    for (let step = 0; step < 10; step += 1) await recording.next();
    // Some deltas of the running reply are handed out and not yet stored.
    const follower = followEvents(log, feed, 's1', 2, controller.signal);
    const seen: number[] = [];
    const following = (async () => {
      for await (const event of follower) {
        seen.push(event.seq);
        if (event.seq === 6 + 103) controller.abort();
      }
    })();
    for (let step = await recording.next(); step.done !== true; step = await recording.next()) {
      // run the reply to its end
    }
    await following;
    expect(seen).toEqual(Array.from({ length: 109 - 2 }, (_, index) => index + 3));
  });

  it('gives a follower starting while a reply runs here its shown events without reading the log', async () => {
    const log = new ReadCountingLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    const before = await drain(feed.record('s1', live(textReply(3))));
    const recording = feed.record('s1', live(textReply(20)));
    const shown: StoredEvent[] = [];
    for (let step = 0; step < 6; step += 1) {
      const next = await recording.next();
      if (next.done !== true) shown.push(next.value);
    }
    const after = before.length;
    const followers = [after, 0].map((from) => {
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const event of followEvents(log, feed, 's1', from, controller.signal)) {
          seen.push(event.seq);
          if (event.seq === before.length + 23) controller.abort();
        }
      })();
      return { from, seen, following };
    });
    const rest = await drain(recording);
    await Promise.all(followers.map((follower) => follower.following));
    const all = [...before, ...shown, ...rest].map((event) => event.seq);
    for (const { from, seen } of followers) expect(seen).toEqual(all.slice(from));
    // Only the follower from 0 needed the reply before, and read it from the log.
    expect(log.reads).toEqual([0]);
  });

  it('leaves the running reply alone when a refused call starts recording the same session', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const feed = new EventFeed(log);
    const running = feed.record('s1', live(textReply(100)));
    const first: StoredEvent[] = [];
    for (let step = 0; step < 10; step += 1) {
      const next = await running.next();
      if (next.done !== true) first.push(next.value);
    }
    async function* refused(): AsyncGenerator<AgentEvent> {
      yield* [];
      throw new Error('refused by the runner');
    }
    // The refused call fails while the running reply goes on storing events.
    const [refusal, rest] = await Promise.all([
      drain(feed.record('s1', refused())).catch((error: unknown) => error),
      drain(running),
    ]);
    expect(refusal).toEqual(new Error('refused by the runner'));
    const all = [...first, ...rest];
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(await log.events('s1', 0, 1000)).toEqual(all);
  });
});
