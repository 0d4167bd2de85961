import { SessionBusyError } from '@parley/core';
import type { AgentEvent } from '@parley/core';
import { EventNumberTakenError } from '../errors.js';
import type { WaitingSource } from '../waiting/saved-waits.js';
import type { AppendOptions, SessionLog, StoredEvent } from '../log/session-log.js';

/** Event types that may come many to a step; they are stored with the next event that is not one. */
const deltaTypes: ReadonlySet<string> = new Set([
  'TEXT_BLOCK_DELTA',
  'THINKING_BLOCK_DELTA',
  'DATA_BLOCK_DELTA',
  'TOOL_CALL_DELTA',
  'TOOL_RESULT_TEXT_DELTA',
  'TOOL_RESULT_DATA_DELTA',
]);

/** How many numbers a reservation covers: one commit per this many deltas at most. */
const RESERVATION = 64;

/**
 * On a log other processes follow (one with `watch`), deltas waiting longer
 * than this are stored with the next delta, so a follower elsewhere sees a
 * stream at most about this late: at most a few commits a second per reply.
 */
const SHARED_FLUSH_MS = 250;

type Listener = (event: StoredEvent) => void;

/**
 * A session's live side: events handed out but not yet stored, who follows
 * them (and whom to tell when events numbered here could not be stored),
 * the highest number a recording here has given an event of it, and the
 * events the running recording has shown (at least the last `RECENT` of them).
 */
type Channel = {
  pending: StoredEvent[];
  listeners: Set<Listener>;
  missed: Set<() => void>;
  recording: boolean;
  numbered: number;
  recent: StoredEvent[];
};

/** How many of a running reply's events a follower starting late may take from memory. */
const RECENT = 256;

/** What a subscriber gets at once: the events handed out but not yet stored, and how to leave. */
export type Subscription = { pending: StoredEvent[]; unsubscribe: () => void };

/**
 * Events after which the runner may end its stream: they are stored and
 * shown before it is asked for more, so a runner that holds its session
 * until its stream ends still does when its last event reaches a client.
 */
const lastTypes: ReadonlySet<string> = new Set([
  'REPLY_END',
  'REQUIRE_USER_CONFIRM',
  'REQUIRE_EXTERNAL_EXECUTION',
]);

/** How many times events held for a commit are numbered anew when another process took their numbers. */
const RENUMBERINGS = 3;

/** At most this many events wait for one commit. */
const BATCH = 256;

/**
 * Events wait for company at most this long (ms): a runner busy without
 * waiting (synchronous saves, a tool computing) still shows its events as
 * it goes.
 */
const HOLD_MS = 10;

/**
 * What `promise` resolves to if it does so before the event loop's next
 * turn (through microtasks only: the runner had it at hand), else
 * `undefined`. `promise` must not reject.
 */
function withinTurn<T>(promise: Promise<T>): Promise<T | undefined> {
  return new Promise((resolve) => {
    const turn = setImmediate(() => resolve(undefined));
    void promise.then((value) => {
      clearImmediate(turn);
      resolve(value);
    });
  });
}

/** A step of the runner's stream, or how it failed. */
type Pulled = { step: IteratorResult<AgentEvent> } | { failure: unknown };

const pulled = (next: Promise<IteratorResult<AgentEvent>>): Promise<Pulled> =>
  next.then(
    (step) => ({ step }),
    (failure: unknown) => ({ failure }),
  );

/**
 * Numbers, stores and fans out the events of the replies this server runs.
 * Every event gets the next number of its session; a non-delta event is
 * stored before anyone sees it, together with the deltas before it (one
 * transaction), so a streamed text costs a commit per block, not per token.
 * After a reply's first event (stored and shown alone: its stream opens on
 * it), the events a runner gives within one turn of the event loop
 * (without waiting on anything but promises already settled, and for at
 * most `HOLD_MS`) are stored together, in one append, and shown together
 * after it. Before a delta is handed out
 * under a number that is not yet stored, the number is reserved in the log
 * (a block of them at a time), so after a crash the numbers clients saw
 * are not handed out again.
 *
 * A reply is numbered after the last number the log knows of its session
 * without a read when it can (`knownLastSeq`): its first append then
 * checks that nothing was stored or reserved above it since. The append
 * of a reply's last event (a park or an end, saved before it is given)
 * also refreshes the approvals index from that save, taken from `waits`.
 */
export class EventFeed {
  private readonly channels = new Map<string, Channel>();

  /** Deltas older than this are stored with the next one (none: only by reservation). */
  private readonly flushMs: number | undefined;

  constructor(
    private readonly log: SessionLog,
    private readonly waits?: WaitingSource,
  ) {
    this.flushMs = log.watch === undefined ? undefined : SHARED_FLUSH_MS;
  }

  private channel(sessionId: string): Channel {
    let channel = this.channels.get(sessionId);
    if (channel === undefined) {
      channel = {
        pending: [],
        listeners: new Set(),
        missed: new Set(),
        recording: false,
        numbered: 0,
        recent: [],
      };
      this.channels.set(sessionId, channel);
    }
    return channel;
  }

  private release(sessionId: string, channel: Channel): void {
    if (!channel.recording && channel.pending.length === 0 && channel.listeners.size === 0) {
      this.channels.delete(sessionId);
    }
  }

  /**
   * Follows a session: `listener` gets every event handed out from now on;
   * `pending` lists those handed out before and not yet stored, so a reader
   * of the log misses none. `missed` is called when an append of events
   * numbered here failed: the log may hold other events under their
   * numbers (stored by another process), which only the log can tell.
   */
  subscribe(sessionId: string, listener: Listener, missed?: () => void): Subscription {
    const channel = this.channel(sessionId);
    channel.listeners.add(listener);
    if (missed !== undefined) channel.missed.add(missed);
    return {
      pending: [...channel.pending],
      unsubscribe: () => {
        channel.listeners.delete(listener);
        if (missed !== undefined) channel.missed.delete(missed);
        this.release(sessionId, channel);
      },
    };
  }

  /**
   * The highest number a reply recorded here has given an event of
   * `sessionId` while someone followed it (0 for none): those events reach
   * the followers from here once stored, so a notice of their append need
   * not send anyone to the log.
   */
  numbered(sessionId: string): number {
    return this.channels.get(sessionId)?.numbered ?? 0;
  }

  /**
   * The events numbered above `after` that the reply of `sessionId` running
   * here has shown, in order, if they are all of them since `after`: what a
   * follower starting late would otherwise read from the log. `undefined`
   * when no reply of the session runs here (another process may have
   * stored events since), or when some of those events are not kept.
   */
  recent(sessionId: string, after: number): StoredEvent[] | undefined {
    const channel = this.channels.get(sessionId);
    const first = channel?.recent[0];
    if (channel?.recording !== true || first === undefined || first.seq > after + 1) {
      return undefined;
    }
    return channel.recent.filter((event) => event.seq > after);
  }

  /**
   * Numbers and stores `events` of one reply of `sessionId`, yielding each
   * once it may be shown. Only one reply of a session runs at a time (the
   * session runner refuses a second, and so does this, with
   * `SessionBusyError`), so the numbers follow on.
   */
  async *record(
    sessionId: string,
    events: AsyncIterable<AgentEvent>,
  ): AsyncGenerator<StoredEvent, void, undefined> {
    const iterator = events[Symbol.asyncIterator]();
    // Nothing is touched until the runner gives the first event: a call it
    // refuses (a second answer, a busy session) never reaches the channel
    // of the reply that is running.
    let step = await iterator.next();
    if (step.done === true) return;
    const channel = this.channel(sessionId);
    if (channel.recording) {
      await iterator.return?.();
      throw new SessionBusyError(sessionId);
    }
    channel.recording = true;
    channel.recent = [];
    /** Numbered, not yet stored nor shown: shown once stored. */
    let held: StoredEvent[] = [];
    let last = 0;
    let reserved = 0;
    /** The number the reply was numbered after, until an append confirms it (see `after`). */
    let unconfirmed: number | undefined;
    let flushedAt = Date.now();
    /** When the first of the events held now was numbered. */
    let heldSince = 0;
    /** Stores the deltas handed out and the events held, then shows and yields those. */
    const publish = async function* (feed: EventFeed) {
      // A delta last: more may follow, to be shown before they are stored,
      // under numbers reserved now (a block at a time).
      const top = held.at(-1);
      if (top !== undefined && deltaTypes.has(top.type) && top.seq > reserved) {
        reserved = top.seq + RESERVATION - 1;
      }
      reserved = Math.max(reserved, last);
      for (let attempt = 1; ; attempt += 1) {
        try {
          await feed.flush(sessionId, channel, held, reserved, unconfirmed);
          unconfirmed = undefined;
          break;
        } catch (error) {
          if (!(error instanceof EventNumberTakenError) || attempt === RENUMBERINGS) throw error;
        }
        // Another process stored events under numbers held here (a reply it
        // started as this one's state was saved, before these were stored).
        // No one has seen the held ones: they take the numbers after its.
        const stored = await feed.log.lastSeq(sessionId);
        unconfirmed = undefined;
        held = held.map((event, index) => ({ ...event, seq: stored + 1 + index }));
        last = stored + held.length;
        reserved = Math.max(reserved, last);
        channel.numbered = Math.max(channel.numbered, last);
      }
      flushedAt = Date.now();
      const shown = held;
      held = [];
      feed.show(channel, shown);
      yield* shown;
    };
    try {
      unconfirmed = this.log.knownLastSeq?.(sessionId);
      last = unconfirmed ?? (await this.log.lastSeq(sessionId));
      reserved = last;
      const first = last + 1;
      for (;;) {
        const event = step.value;
        last += 1;
        channel.numbered = last;
        const stored: StoredEvent = { seq: last, type: event.type, data: JSON.stringify(event) };
        // Deltas under numbers already reserved may be shown before they are
        // stored, as long as nothing before them waits to be.
        const early =
          held.length === 0 &&
          deltaTypes.has(event.type) &&
          last <= reserved &&
          (this.flushMs === undefined || Date.now() - flushedAt < this.flushMs);
        let next: Pulled | undefined;
        if (early) {
          // A delta under a reserved number: shown now, stored with a later commit.
          channel.pending.push(stored);
          this.show(channel, [stored]);
          yield stored;
        } else {
          if (held.length === 0) heldSince = Date.now();
          held.push(stored);
          // The first event goes out alone: the reply's stream opens on it.
          const alone = last === first || lastTypes.has(event.type);
          if (!alone && held.length < BATCH && Date.now() - heldSince < HOLD_MS) {
            // What the runner has at hand goes into the same commit.
            const upcoming = pulled(iterator.next());
            next = await withinTurn(upcoming);
            if (next === undefined) {
              yield* publish(this);
              next = await upcoming;
            }
          } else {
            yield* publish(this);
          }
        }
        next ??= await pulled(iterator.next());
        if ('failure' in next || next.step.done === true) {
          // What the runner gave before it ended or failed is stored and shown.
          if (held.length > 0) yield* publish(this);
          if ('failure' in next) throw next.failure;
          return;
        }
        step = next.step;
      }
    } finally {
      try {
        await iterator.return?.();
        // A clean end gives back the numbers reserved and not used; after a
        // failure, the events numbered are stored all the same.
        if (channel.pending.length > 0 || held.length > 0 || reserved > last) {
          await this.flush(sessionId, channel, held, last, unconfirmed);
          this.show(channel, held);
        }
      } finally {
        channel.recording = false;
        channel.recent = [];
        this.release(sessionId, channel);
      }
    }
  }

  /** Hands `events` to the session's followers, in order. */
  private show(channel: Channel, events: readonly StoredEvent[]): void {
    if (channel.recording) {
      channel.recent.push(...events);
      // Trimmed in steps, so a long stream of deltas does not move the array at each one.
      if (channel.recent.length > 2 * RECENT)
        channel.recent.splice(0, channel.recent.length - RECENT);
    }
    for (const event of events) {
      for (const listener of channel.listeners) listener(event);
    }
  }

  /**
   * Stores the events handed out and not yet stored, then `held`, reserving
   * through `reservedThrough`; `after`: the number they were numbered after,
   * not yet confirmed by an append. With a reply's last event goes the
   * approvals index refresh of the save before it.
   */
  private async flush(
    sessionId: string,
    channel: Channel,
    held: readonly StoredEvent[],
    reservedThrough: number,
    after: number | undefined,
  ): Promise<void> {
    const batch = held.length === 0 ? channel.pending : [...channel.pending, ...held];
    const handedOut = channel.pending.length;
    const options: AppendOptions = {};
    if (after !== undefined) options.after = after;
    const waiting = held.some((event) => lastTypes.has(event.type))
      ? this.waits?.pending(sessionId)
      : undefined;
    if (waiting !== undefined) options.waiting = waiting;
    try {
      await this.log.append(sessionId, batch, reservedThrough, options);
    } catch (error) {
      for (const missed of channel.missed) missed();
      throw error;
    }
    if (waiting !== undefined) this.waits?.indexed(sessionId, waiting);
    channel.pending = channel.pending.slice(handedOut);
  }
}
