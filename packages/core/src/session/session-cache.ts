import { InvalidInputError } from '../errors/index.js';
import type { Msg } from '../message/index.js';

/**
 * What a store keeps of a session it served, as of `version`: the head as
 * stored, how many messages the session has (`count`), the text of the last
 * one (`lastText`), and the texts and objects of the ones before it
 * (`texts[i]`, `messages[i]` for `i < count - 1`). Read them through
 * `cachedText` and `cachedMessage`: the two lists may be longer than
 * `count - 1`, because entries of later versions share them. A save that
 * keeps every message before the last known one appends to the lists of the
 * entry it starts from, when nobody has appended to them yet, instead of
 * copying them (a session of 1,000 turns has 2,000 messages, and a reply
 * saves several times); anything else copies. So no position below an
 * entry's `count - 1` is ever written again, and an entry stays as it was
 * for whoever still holds it.
 *
 * The message objects are the ones a save of this process was given, or
 * the ones a load parsed; they are shared by every later load and never
 * changed in place (the agent only ever changes the last message, and each
 * load parses its own copy of that one). So a save handed the same object
 * at the same place, before the last, knows the stored row is still right
 * without serializing it again. `bytes`: what the entry is counted as
 * against the cache's bound (see `cachedBytes`).
 */
export type CachedSession = {
  version: number;
  head: string;
  count: number;
  lastText: string | undefined;
  texts: string[];
  messages: Msg[];
  bytes: number;
};

/** The stored text of message `position` as of `entry`, if it has one. */
export function cachedText(entry: CachedSession, position: number): string | undefined {
  if (position < entry.count - 1) return entry.texts[position];
  return position === entry.count - 1 ? entry.lastText : undefined;
}

/** The message object at `position` as of `entry`, if it is one before the last. */
export function cachedMessage(entry: CachedSession, position: number): Msg | undefined {
  return position < entry.count - 1 ? entry.messages[position] : undefined;
}

/**
 * The memory an entry is counted as: about three bytes a character of its
 * texts (a text takes one byte a character in memory when it is ASCII, two
 * otherwise, and the parsed message next to it about as much again). An
 * estimate, kept cheap: only `texts[from]` up to `texts[to - 1]` are
 * counted, next to the head (a save adds the ones it wrote to what it knew).
 */
export function cachedBytes(
  head: string,
  texts: readonly string[],
  from = 0,
  to = texts.length,
): number {
  let characters = head.length;
  for (let position = from; position < to; position++) {
    characters += texts[position]?.length ?? 0;
  }
  return characters * 3;
}

/** The default bound of a store's session cache: 64 MiB. */
export const DEFAULT_SESSION_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * A per-process LRU of the sessions a store served, bounded by bytes (see
 * `cachedBytes`). A store checks an entry against the stored version on
 * every load and reads only the rows written since, so another process's
 * write is seen at once and a session nobody else touched costs one small
 * read. 0 bytes keeps nothing (every save then rewrites every message row,
 * and every load reads them all). An entry bigger than the bound is not kept.
 */
export class SessionCache {
  private readonly maxBytes: number;
  private readonly entries = new Map<string, CachedSession>();
  private total = 0;

  constructor(maxBytes: number = DEFAULT_SESSION_CACHE_BYTES) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) {
      throw new InvalidInputError(
        `The session cache bound must be a number of bytes ≥ 0, not ${maxBytes}.`,
      );
    }
    this.maxBytes = maxBytes;
  }

  /** The bytes the entries kept now are counted as (never above the bound). */
  get bytes(): number {
    return this.total;
  }

  /** The entry of `sessionId`, marked as the most recently used. */
  get(sessionId: string): CachedSession | undefined {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return undefined;
    this.entries.delete(sessionId);
    this.entries.set(sessionId, entry);
    return entry;
  }

  /**
   * Keeps `entry` for `sessionId` (replacing the one before, unless that one
   * is of a later version: a load that raced a save of this process may
   * finish last), then evicts the least recently used until within the bound.
   */
  set(sessionId: string, entry: CachedSession): void {
    const kept = this.entries.get(sessionId);
    if (kept !== undefined && kept.version > entry.version) return;
    this.delete(sessionId);
    if (entry.bytes > this.maxBytes) return;
    this.entries.set(sessionId, entry);
    this.total += entry.bytes;
    for (const [id, oldest] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(id);
      this.total -= oldest.bytes;
    }
  }

  /** Forgets `sessionId`. */
  delete(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return;
    this.entries.delete(sessionId);
    this.total -= entry.bytes;
  }
}
