import type { OpenAPIHono } from '@hono/zod-openapi';
import type { LRUCache } from 'lru-cache';
import type { Logger, SessionStore, Sessions } from '@parley/core';
import { SessionNotFoundError } from '../errors.js';
import type { EventFeed } from '../events/event-feed.js';
import type { ServerMetrics } from './metrics.js';
import type { RunningReply } from '../replies/reply-task.js';
import { approvalsOf } from '../waiting/saved-waits.js';
import type { SavedWaits } from '../waiting/saved-waits.js';
import { isApprover } from '../auth/principal.js';
import type { Principal } from '../auth/principal.js';
import type { Authenticate } from '../auth/principal.js';
import type { SessionLog, SessionRecord } from '../log/session-log.js';
import type { StreamLimits, StreamSlot } from '../events/stream-limits.js';

/**
 * The hono environment of the routes: the authenticated principal, and
 * the place under the stream limits a stream request was admitted to
 * (until the stream takes it over).
 */
export type ServerEnv = {
  Variables: { principal: Principal; streamSlot: StreamSlot | undefined };
};

/** The routes' app. */
export type ServerApp = OpenAPIHono<ServerEnv>;

/** What the routes work with, built once by `createServer`. */
export type ServerContext = {
  sessions: Sessions;
  store: SessionStore;
  /** What the last state `sessions` saved of each session waits on, for the approvals index. */
  saved: SavedWaits;
  log: SessionLog;
  /**
   * Session records found lately (`SessionLog` never changes a record once
   * created), so their owners and approvers need no lookup.
   */
  records: LRUCache<string, SessionRecord>;
  feed: EventFeed;
  clock: () => Date;
  /**
   * How long an `Idempotency-Key` claim is held without a renewal: the
   * session lease, so a claim outlives its holder as long as a session does.
   */
  claimLeaseMs: number;
  /**
   * Replies running in this server, so `close` can wait for them: `done`
   * resolves once a reply's events are stored and its index refreshed.
   */
  running: Set<RunningReply>;
  /** Aborted when `close` begins: new requests are refused. */
  draining: AbortSignal;
  /** Aborted at the end of `close`: event streams end. */
  closing: AbortSignal;
  /** The event streams open now, each resolving once it has ended. */
  streams: Set<Promise<void>>;
  /** Where failures that no request sees are told (a sweep, an index or log write). */
  logger: Logger;
  /** Milliseconds between `: ping` comments on an event stream. */
  pingMs: number;
  /** The server's Prometheus metrics. */
  metrics: ServerMetrics;
  /** Finds a request's principal; asked again while an event stream stays open. */
  authenticate: Authenticate;
  /** Milliseconds between checks of an open event stream's credentials (0: none). */
  streamAuthCheckMs: number;
  /** How many event streams may be open, per principal and in all. */
  streamLimits: StreamLimits;
};

/** Whether `principal` may see the session of `record`: its owner, or an approver. */
function mayView(record: SessionRecord, principal: Principal): boolean {
  return record.owner === principal.id || isApprover(principal);
}

/**
 * The record of a session the principal may see: its owner's, or any for an
 * approver. Anyone else gets `SessionNotFoundError`, exactly as for a session
 * that does not exist, after the same lookup: a record found lately spares
 * only those who may see it the lookup, so how fast the refusal comes does
 * not tell whether the session exists.
 */
export async function visibleSession(
  context: ServerContext,
  principal: Principal,
  sessionId: string,
): Promise<SessionRecord> {
  const known = context.records.get(sessionId);
  if (known !== undefined && mayView(known, principal)) return known;
  const record = await context.log.session(sessionId);
  if (record === undefined || !mayView(record, principal)) {
    throw new SessionNotFoundError(sessionId);
  }
  context.records.set(sessionId, record);
  return record;
}

/**
 * Refreshes the approvals index of a session, after a reply of it parked,
 * ended or was cancelled: from the last state this process saved of it,
 * or else from its stored state. The index is written with the version
 * of that state, so a refresh from an older state than one written
 * meanwhile (a reply started since, here or on another node) leaves the
 * newer one in place.
 */
export async function indexWaiting(context: ServerContext, sessionId: string): Promise<void> {
  const saved = context.saved.take(sessionId);
  // The reply's last append refreshed the index from the last save already.
  if (saved?.indexed === true) return;
  if (saved !== undefined) {
    await context.log.setWaiting(sessionId, saved.approvals, saved.version);
    return;
  }
  const stored = await context.store.load(sessionId);
  await context.log.setWaiting(
    sessionId,
    approvalsOf(sessionId, stored?.state),
    stored?.version ?? 0,
  );
}
