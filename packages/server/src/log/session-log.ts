import type { WaitingCall } from '../waiting/session-summary.js';

/** Who owns a session the server created, and when it was created (ISO time). */
export type SessionRecord = { id: string; owner: string; createdAt: string };

/**
 * An event as the log keeps it: `seq` is its number in its session (from 1),
 * the SSE `id`; `type` its `type`; `data` its JSON text, exactly as emitted,
 * which is what an SSE frame carries.
 */
export type StoredEvent = { seq: number; type: string; data: string };

/** A page of sessions, newest first; `next` is the cursor of the next page, `null` after the last. */
export type SessionPage = { sessions: SessionRecord[]; next: string | null };

/**
 * What the server keeps beside the `SessionStore`: which principal owns each
 * session, and each session's events in order. The sequence numbers are the
 * caller's: `append` stores what it is given, and `lastSeq` is the highest
 * number stored or reserved, so numbers handed out before a crash are never
 * handed out again (see docs/decisions/server-0001-http-service.md).
 */
export interface SessionLog {
  /** Records a new session; refuses an id already recorded with `InvalidInputError`. */
  createSession(record: SessionRecord): Promise<void>;
  /** The record of a session, `undefined` when the server never created it. */
  session(sessionId: string): Promise<SessionRecord | undefined>;
  /** Sessions of `owner` (every owner's when `null`), newest first, `limit` at a time. */
  listSessions(
    owner: string | null,
    options: { cursor?: string; limit: number },
  ): Promise<SessionPage>;
  /**
   * Stores `events` (numbered by the caller, following the stored ones) and
   * reserves the numbers up to `reservedThrough`, in one transaction, with
   * what `options` adds to it. Refuses with `EventNumberTakenError`, storing
   * nothing, a number already stored, or with `options.after` any number
   * above it stored or reserved.
   */
  append(
    sessionId: string,
    events: readonly StoredEvent[],
    reservedThrough: number,
    options?: AppendOptions,
  ): Promise<void>;
  /** The stored events of a session numbered above `after`, in order, at most `limit`. */
  events(sessionId: string, after: number, limit: number): Promise<StoredEvent[]>;
  /** The highest number stored or reserved for the session (0 for none). */
  lastSeq(sessionId: string): Promise<number>;
  /**
   * For a log shared by several processes: the highest number this process
   * last knew stored or reserved for the session, without reading the log
   * (`undefined` when it knows none). Another process may have stored more
   * since: an append numbered after it gives it as `after`.
   */
  knownLastSeq?(sessionId: string): number | undefined;
  /**
   * Replaces what the session waits on in the approvals index (none: `[]`)
   * with what its stored state at `version` waits on, unless the index was
   * last set from a later version: a refresh that read the state before
   * another (on this process or another) never undoes the other's.
   */
  setWaiting(sessionId: string, approvals: readonly Approval[], version: number): Promise<void>;
  /**
   * Records the first request with this principal and key (its `claimId`
   * held until `heldUntil`), or gives the one recorded before (then nothing
   * is written). A claim recorded before whose request is the same, that
   * has no outcome and whose hold ended before `now` (epoch ms) was
   * abandoned by a process that died: it is taken over, in one
   * compare-and-set on its claim id, so of concurrent takers one wins and
   * resolves to `undefined`; the others get the winner's claim. An
   * abandoned claim on which a reply was about to start (`after` recorded
   * by `startIdempotency`) is taken over the same way, but the winner gets
   * the claim back, now held by its `claimId`, instead of `undefined`: it
   * looks in the session's events whether that reply started (then the
   * request must not run again, only be settled with what was stored).
   */
  claimIdempotency(request: IdempotentRequest, now: number): Promise<IdempotentRequest | undefined>;
  /**
   * Records on a claim still held by `request.claimId` and not yet settled
   * that its reply is about to start: `request.after`, the session's last
   * number before the reply's first event. Written before the reply
   * starts, so a takeover can tell from the session's events whether it
   * did (an event numbered above `after` is stored).
   */
  startIdempotency(request: IdempotentRequest): Promise<void>;
  /**
   * Extends the hold of a claim still held by `request.claimId` and not yet
   * settled to `request.heldUntil`; resolves to whether it still was.
   */
  renewIdempotency(request: IdempotentRequest): Promise<boolean>;
  /**
   * Stores the outcome of a claimed request (`after`, `lastSeq`, `response`,
   * `status`, `interrupted`), if its claim is still `request.claimId`'s.
   */
  settleIdempotency(request: IdempotentRequest): Promise<void>;
  /**
   * Forgets a claim whose request was refused, so that a refusal leaves
   * nothing stored; only while the claim is still `request.claimId`'s.
   */
  releaseIdempotency(request: IdempotentRequest): Promise<void>;
  /** Waiting calls of the sessions of `owner` (of every session when `null`), oldest first. */
  listWaiting(owner: string | null): Promise<Approval[]>;
  /**
   * For a log shared by several processes: calls `listener` with the
   * highest number stored by an append to the session, whichever process
   * made it, after that append committed (and with
   * `Number.MAX_SAFE_INTEGER` when appends may have been missed, e.g. after
   * a reconnection: read the log again). Resolves once listening, to the
   * function that stops it. A log only one process writes leaves it out.
   */
  watch?(sessionId: string, listener: (seq: number) => void): Promise<() => void>;
}

/** What an append may do besides storing its events. */
export type AppendOptions = {
  /**
   * The number the caller took as the session's last: if any number above
   * it is stored or reserved (by another process, since), nothing is stored.
   */
  after?: number;
  /** A refresh of the approvals index, as `setWaiting` makes it, in the same transaction. */
  waiting?: WaitingRefresh;
};

/** What a session's stored state at `version` waits on (`setWaiting`'s arguments). */
export type WaitingRefresh = { approvals: readonly Approval[]; version: number };

/** A call a parked reply waits on, as the approvals index keeps it (HTTP.md's `Approval`). */
export type Approval = {
  sessionId: string;
  replyId: string;
  deadline: string | null;
  toolCall: WaitingCall;
};

/**
 * A POST made with an `Idempotency-Key`: who sent it, a digest of what it
 * asked, which claim runs it (`claimId`, one per attempt) and until when
 * that claim is held unless renewed (`heldUntil`, epoch ms), and once its
 * reply is over, the outcome to give again: the numbers of its events
 * (`after` exclusive to `lastSeq` inclusive) and its JSON response with its
 * HTTP `status` (200, or the error's status and problem body when the
 * request failed). `after` is recorded just before the reply starts;
 * `interrupted` says the process running the reply died before it was
 * over, so the outcome is the events stored until then and no JSON.
 */
export type IdempotentRequest = {
  principal: string;
  key: string;
  requestHash: string;
  claimId: string;
  heldUntil: number;
  after: number | null;
  lastSeq: number | null;
  response: string | null;
  status: number;
  interrupted: boolean;
};

/** An API key as stored: never the key itself, only the SHA-256 of its secret. */
export type ApiKeyRecord = {
  id: string;
  principal: string;
  roles: string[];
  secretHash: string;
  createdAt: string;
  revokedAt: string | null;
};

/** Where API keys are kept, hashed (see `apiKeyAuth`). */
export interface ApiKeyStore {
  /** Stores a new key record. */
  addKey(record: ApiKeyRecord): Promise<void>;
  /** The key with this id, revoked or not; `undefined` if there is none. */
  findKey(id: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, oldest first. */
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked at `at`; resolves to whether a live key was revoked. */
  revokeKey(id: string, at: string): Promise<boolean>;
}
