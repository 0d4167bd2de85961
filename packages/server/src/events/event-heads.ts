import { LRUCache } from 'lru-cache';

/** A session's highest stored event number, and the number reserved through (0 for none). */
export type EventHead = { stored: number; reserved: number };

/** How many sessions' heads are kept. */
const KEPT = 4096;

/**
 * The heads of the sessions a log read or appended to lately (the `KEPT`
 * used most recently), for a log that only one process writes: what its
 * own appends did is all that changes them, so `lastSeq` needs no read.
 */
export class EventHeads {
  private readonly heads = new LRUCache<string, EventHead>({ max: KEPT });

  /** The head known for `sessionId`, if any. */
  get(sessionId: string): EventHead | undefined {
    return this.heads.get(sessionId);
  }

  /** Keeps `head` for `sessionId`, forgetting the least recently used past `KEPT`. */
  remember(sessionId: string, head: EventHead): void {
    this.heads.set(sessionId, head);
  }

  /**
   * Follows a committed append of events numbered up to `top` (0 for none)
   * that reserved through `reservedThrough`: past `top` it sets the
   * reservation, else it only lowers one that reached further.
   */
  appended(sessionId: string, top: number, reservedThrough: number): void {
    const head = this.heads.get(sessionId);
    if (head === undefined) return;
    const reserved =
      reservedThrough > top ? reservedThrough : Math.min(head.reserved, reservedThrough);
    this.remember(sessionId, { stored: Math.max(head.stored, top), reserved });
  }
}
