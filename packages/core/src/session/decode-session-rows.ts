import { InvalidStateError } from '../errors/index.js';
import type { Msg } from '../message/index.js';
import { joinStateHead, parseStateHead } from '../state/head.js';
import type { CachedSession } from './session-cache.js';
import { cachedBytes, cachedMessage, cachedText } from './session-cache.js';
import { digestMatches, parseStored } from './stored-message.js';
import type { StoredSession } from './session-store.js';
import { decodeStoredSession } from './stored-state.js';

/**
 * What a store read of one session in one snapshot: the head row (`head`
 * is the text of the `state` column; `messageCount` is `null` for a
 * session stored before message rows, whose `state` is the whole state),
 * and the message rows written after version `since` (all of them when
 * `since` is 0), in any order. A row is `[position, text, digest]` as the
 * database gives it (a driver's array row mode; further columns are
 * ignored), so a load of a long session makes no object per row.
 */
export type StoredSessionRows = {
  version: number;
  head: unknown;
  messageCount: number | null;
  leaseUntil: string | null | undefined;
  since: number;
  rows: readonly (readonly unknown[])[];
};

/**
 * Builds the `StoredSession` a store's `load` gives from what it read and
 * what its cache holds (`base`, as of version `read.since`; `undefined`
 * when `since` is 0). Returns the entry to cache, too (`undefined` for a
 * session in the old, whole-state form).
 *
 * Checks, in this order, refusing with `InvalidStateError` naming the
 * session: the head is JSON and a valid head (zod, after migration); every
 * row read sits inside the message count, once, and matches its digest
 * (so it is a row a Parley store validated and wrote there: its text is
 * parsed without validating it again); every message the count calls for
 * was read or is cached; the reply in progress matches the last message.
 * The state is the caller's own, except that messages before the last are
 * shared with the cache and later loads: they must not be changed in place.
 */
export function decodeSessionRows(
  sessionId: string,
  read: StoredSessionRows,
  base: CachedSession | undefined,
): { session: StoredSession; entry: CachedSession | undefined } {
  if (read.messageCount === null) {
    const whole = { state: read.head, version: read.version, leaseUntil: read.leaseUntil };
    return { session: decodeStoredSession(sessionId, whole), entry: undefined };
  }
  const refuse = (problem: string): InvalidStateError =>
    new InvalidStateError(`Stored state of session '${sessionId}' ${problem}.`, { sessionId });
  if (typeof read.head !== 'string') throw refuse('is not text');
  let headValue: unknown;
  try {
    headValue = JSON.parse(read.head);
  } catch (cause) {
    throw new InvalidStateError(`Stored state of session '${sessionId}' is not valid JSON.`, {
      sessionId,
      cause,
    });
  }
  const head = parseStateHead(headValue, sessionId);
  // Checked before the rows: a head copied from another session finds none of its rows here.
  if (head.sessionId !== sessionId) throw refuse(`belongs to session '${head.sessionId}'`);
  const count = read.messageCount;
  const known = read.since > 0 && base?.version === read.since ? base : undefined;
  const session = (context: Msg[]): StoredSession => {
    const loaded: StoredSession = { state: joinStateHead(head, context), version: read.version };
    if (typeof read.leaseUntil === 'string') loaded.leaseUntil = read.leaseUntil;
    return loaded;
  };
  // Nothing written since the cached version: the cached messages, and the last parsed anew.
  if (known !== undefined && read.rows.length === 0 && count === known.count) {
    const context = known.messages.slice(0, Math.max(0, count - 1));
    const lastText = known.lastText;
    if (lastText !== undefined) context.push(parseStored(sessionId, count - 1, lastText));
    return { session: session(context), entry: known };
  }
  const texts: (string | undefined)[] = new Array<string | undefined>(count);
  const fresh: (Msg | undefined)[] = new Array<Msg | undefined>(count);
  for (const row of read.rows) {
    const position = row[0];
    const text = row[1];
    const digest = row[2];
    if (typeof position !== 'number' || !Number.isInteger(position)) {
      throw refuse('has a message row with no valid position');
    }
    if (position < 0 || position >= count || texts[position] !== undefined) {
      throw refuse(`has a message row at ${position} where it has none (${count} messages)`);
    }
    if (typeof text !== 'string' || !digestMatches(sessionId, position, text, digest)) {
      throw refuse(
        `has a message row at ${position} that does not match its digest (changed outside Parley)`,
      );
    }
    texts[position] = text;
    fresh[position] = parseStored(sessionId, position, text);
  }
  const context: Msg[] = [];
  const before: string[] = [];
  let lastText: string | undefined;
  for (let position = 0; position < count; position++) {
    const text = texts[position] ?? (known === undefined ? undefined : cachedText(known, position));
    if (text === undefined) throw refuse(`is missing message row ${position}`);
    if (position === count - 1) lastText = text;
    else before.push(text);
    const cached =
      position < count - 1 && known !== undefined ? cachedMessage(known, position) : undefined;
    context.push(fresh[position] ?? cached ?? parseStored(sessionId, position, text));
  }
  const loaded = session(context);
  // The cache keeps its own copy of the last message: this one is the caller's to change.
  const entry: CachedSession = {
    version: read.version,
    head: read.head,
    count,
    lastText,
    texts: before,
    messages: context.slice(0, -1),
    bytes: cachedBytes(read.head, before) + 3 * (lastText?.length ?? 0),
  };
  return { session: loaded, entry };
}
