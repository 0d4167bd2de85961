import { InvalidStateError } from '../errors/index.js';
import { describeSchemaProblem } from '../event/schema-problem.js';
import type { Msg } from '../message/index.js';
import { messageSchema } from '../message/index.js';
import type { AgentState } from '../state/index.js';
import { findMessageProblems } from '../state/invariants.js';
import { stateProblemMessage } from '../state/migrations.js';
import { serializeStateHead } from '../state/index.js';
import type { SaveOptions } from './session-store.js';
import { parkedDeadline, storedLease } from './session-store.js';
import type { CachedSession } from './session-cache.js';
import { cachedBytes, cachedText } from './session-cache.js';
import { messageDigest } from './stored-message.js';

/**
 * One stored message: its place in the context, its JSON text, and the
 * digest that binds the two to the session (see `messageDigest`).
 */
export type MessageRow = { position: number; text: string; digest: string };

/**
 * What one save writes: the head (the state without its messages, see
 * `serializeStateHead`), the number of messages, the rows that are new or
 * changed since the version the save expects (in position order), and
 * whether rows at `messageCount` and beyond may exist and must go
 * (`trim`). `entry` is what the store's cache keeps once the save commits,
 * as of the version it makes.
 */
export type SessionWrite = {
  head: string;
  messageCount: number;
  rows: MessageRow[];
  trim: boolean;
  deadline: string | null;
  leaseUntil: string | null;
  entry: CachedSession;
};

/**
 * Plans the save of `state` as version `expectedVersion + 1`, against
 * `base`, what the store knows is stored at `expectedVersion` (from its
 * cache; `undefined` when it knows nothing, and then every row is written).
 * A message is serialized only when it may have changed: a message before
 * the last of `base` that is the same object as then is taken as it is
 * (messages are changed in place only while they are the last). A row to
 * write is validated as a message, with its own invariants, so a load can
 * trust a row whose digest matches. Synchronous: it reads the whole state
 * before the store's first `await`. Refuses an invalid message with
 * `InvalidStateError` (nothing is written) and a lease that is no time with
 * `InvalidInputError`.
 */
export function planSessionWrite(
  sessionId: string,
  state: AgentState,
  expectedVersion: number,
  options: SaveOptions,
  base: CachedSession | undefined,
): SessionWrite {
  const leaseUntil = storedLease(options.leaseUntil);
  const context = state.context;
  const count = context.length;
  const known = base?.version === expectedVersion ? base : undefined;
  // The messages before the last one known that are the objects it holds:
  // their rows stand, unread. The last message of `state` is always
  // serialized (it is the entry's `lastText`), even when a save drops the
  // messages after it.
  let same = 0;
  if (known !== undefined) {
    const limit = Math.min(count - 1, known.count - 1);
    const held = known.messages;
    // `Object.is`, not `===`: both are identity for objects, but V8's `===`
    // reads each object's map (a cache miss per message of a session not
    // touched lately: about 40 ns each, 80 µs at 2,000 messages), while
    // `Object.is` of two equal references answers without reading them.
    while (same < limit && Object.is(context[same], held[same])) same++;
  }
  // The known lists are extended in place when they hold exactly the
  // messages that stand (nobody appended to them yet), else copied: see
  // `CachedSession`. A refused save may leave an append behind; the next
  // save from the same entry then copies.
  const extend =
    known !== undefined && known.texts.length === same && known.messages.length === same;
  const texts: string[] = extend ? known.texts : (known?.texts.slice(0, same) ?? []);
  const messages: Msg[] = extend ? known.messages : (known?.messages.slice(0, same) ?? []);
  const rows: MessageRow[] = [];
  let lastText: string | undefined;
  let characters = 0;
  for (let position = same; position < count; position++) {
    const message = context[position];
    // Not a string when the context holds something JSON cannot write (refused below).
    const text: string | undefined = JSON.stringify(message);
    if (text === undefined || known === undefined || text !== cachedText(known, position)) {
      checkedMessage(sessionId, position, text);
      if (text === undefined) continue; // not reached: checkedMessage refused it
      rows.push({ position, text, digest: messageDigest(sessionId, position, text) });
    }
    characters += text.length;
    if (position === count - 1) {
      lastText = text;
    } else if (message !== undefined) {
      // Kept as given: from here on it is not changed in place (see `CachedSession`).
      texts.push(text);
      messages.push(message);
    }
  }
  const head = serializeStateHead(state);
  // What the known entry counted for the head and the messages from `same` on goes; the new ones come.
  const knownBytes =
    known === undefined
      ? 0
      : known.bytes -
        cachedBytes(known.head, known.texts, same, known.count - 1) -
        3 * (known.lastText?.length ?? 0);
  return {
    head,
    messageCount: count,
    rows,
    trim: known === undefined ? expectedVersion !== 0 : count < known.count,
    deadline: parkedDeadline(state),
    leaseUntil,
    entry: {
      version: expectedVersion + 1,
      head,
      count,
      lastText,
      texts,
      messages,
      bytes: knownBytes + cachedBytes(head, []) + 3 * characters,
    },
  };
}

/**
 * Message `position`'s text parsed and validated as a stored message would
 * be (its shape and its own invariants), or `InvalidStateError` naming the
 * session and the bad field (`context.<position>...`).
 */
function checkedMessage(sessionId: string, position: number, text: string | undefined): void {
  const value: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
  const parsed = messageSchema.safeParse(value);
  if (!parsed.success) {
    const described = messageSchema.safeParse(value, { reportInput: true });
    const { path, problem } = described.success
      ? { path: '', problem: 'invalid message' }
      : describeSchemaProblem(described.error);
    const where = path === '' ? `context.${position}` : `context.${position}.${path}`;
    throw new InvalidStateError(stateProblemMessage(sessionId, where, problem), {
      sessionId,
      cause: parsed.error,
    });
  }
  const problem = findMessageProblems(parsed.data, position)[0];
  if (problem !== undefined) {
    throw new InvalidStateError(
      stateProblemMessage(sessionId, problem.path.join('.'), problem.problem),
      { sessionId },
    );
  }
}
