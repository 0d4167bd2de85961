import { SessionBusyError } from '@parley/core';
import type { AgentEvent } from '@parley/core';
import type { SessionLog, StoredEvent } from './server-log.js';

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

/** A session's live side: events handed out but not yet stored, and who follows them. */
type Channel = { pending: StoredEvent[]; listeners: Set<Listener>; recording: boolean };

/** What a subscriber gets at once: the events handed out but not yet stored, and how to leave. */
export type Subscription = { pending: StoredEvent[]; unsubscribe: () => void };

/**
 * Numbers, stores and fans out the events of the replies this server runs.
 * Every event gets the next number of its session; a non-delta event is
 * stored at once together with the deltas before it (one transaction), so
 * a streamed text costs a commit per block, not per token. Before a delta
 * is handed out under a number that is not yet stored, the number is
 * reserved in the log (a block of them at a time), so after a crash the
 * numbers clients saw are not handed out again.
 */
export class EventFeed {
  private readonly channels = new Map<string, Channel>();

  /** Deltas older than this are stored with the next one (none: only by reservation). */
  private readonly flushMs: number | undefined;

  constructor(private readonly log: SessionLog) {
    this.flushMs = log.watch === undefined ? undefined : SHARED_FLUSH_MS;
  }

  private channel(sessionId: string): Channel {
    let channel = this.channels.get(sessionId);
    if (channel === undefined) {
      channel = { pending: [], listeners: new Set(), recording: false };
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
   * of the log misses none.
   */
  subscribe(sessionId: string, listener: Listener): Subscription {
    const channel = this.channel(sessionId);
    channel.listeners.add(listener);
    return {
      pending: [...channel.pending],
      unsubscribe: () => {
        channel.listeners.delete(listener);
        this.release(sessionId, channel);
      },
    };
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
    let last = await this.log.lastSeq(sessionId);
    let reserved = last;
    let flushedAt = Date.now();
    try {
      for (; step.done !== true; step = await iterator.next()) {
        const event = step.value;
        last += 1;
        const stored: StoredEvent = { seq: last, type: event.type, data: JSON.stringify(event) };
        channel.pending.push(stored);
        if (!deltaTypes.has(event.type)) {
          reserved = Math.max(reserved, last);
          await this.flush(sessionId, channel, reserved);
          flushedAt = Date.now();
        } else if (last > reserved) {
          reserved = last + RESERVATION - 1;
          await this.flush(sessionId, channel, reserved);
          flushedAt = Date.now();
        } else if (this.flushMs !== undefined && Date.now() - flushedAt >= this.flushMs) {
          await this.flush(sessionId, channel, reserved);
          flushedAt = Date.now();
        }
        for (const listener of channel.listeners) listener(stored);
        yield stored;
      }
    } finally {
      await iterator.return?.();
      // A clean end gives back the numbers reserved and not used.
      await this.flush(sessionId, channel, last);
      channel.recording = false;
      this.release(sessionId, channel);
    }
  }

  private async flush(sessionId: string, channel: Channel, reservedThrough: number): Promise<void> {
    const batch = channel.pending;
    await this.log.append(sessionId, batch, reservedThrough);
    channel.pending = channel.pending.slice(batch.length);
  }
}
