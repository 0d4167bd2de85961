import { InvalidInputError } from '../errors/index.js';
import type { Msg } from '../message/index.js';

/**
 * What a store keeps of a session it served, as of `version`: the head and
 * message texts as stored (`texts[i]` is the row of message `i`), and the
 * messages before the last (`messages`, one fewer than `texts`: whoever
 * loads a session changes its last message in place, so each load parses
 * its own). Those are the objects a save of this process was given, or the
 * ones a load parsed; they are shared by every later load and never changed
 * in place (the agent only ever changes the last message). So a save handed
 * the same object at the same place, before the last, knows the stored row
 * is still right without serializing it again. `bytes`: what the entry is
 * counted as against the cache's bound (see `cachedBytes`).
 */
export type CachedSession = {
  version: number;
  head: string;
  texts: readonly string[];
  messages: readonly Msg[];
  bytes: number;
};

/**
 * The memory an entry is counted as: about three bytes a character of its
 * texts (a text takes one byte a character in memory when it is ASCII, two
 * otherwise, and the parsed message next to it about as much again). An
 * estimate, kept cheap: `from` counts the texts from that position on only
 * (a save adds the ones it wrote to what it knew).
 */
export function cachedBytes(head: string, texts: readonly string[], from = 0): number {
  let characters = head.length;
  for (let position = from; position < texts.length; position++) {
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
