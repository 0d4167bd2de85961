import type { AgentState } from '../state/index.js';
import { InvalidInputError } from '../errors/index.js';
import type { AuditRecord } from './audit-record.js';

/**
 * A stored session: its state and the version to pass back to `save`, and
 * the lease its last save or `renewLease` set, if it is still set (an ISO
 * time; see `SaveOptions.leaseUntil`).
 */
export type StoredSession = { state: AgentState; version: number; leaseUntil?: string };

/**
 * What may go with a `save`. `audit`: records describing the decisions the
 * saved state reflects; written in the same transaction as the state, all
 * or none, appended after the session's earlier records.
 *
 * `relaxed`: the save need not be forced to stable storage before it
 * returns. It must still survive the process stopping (it is committed),
 * but a power loss may undo it, back to the last save without `relaxed`
 * (which makes every earlier save durable too). The session runner
 * relaxes the in-between steps of a reply and never the ones exactly-once
 * rests on (the claim before a tool runs, the park, the end). Stores with
 * no such distinction ignore it.
 *
 * `leaseUntil`: an ISO time until which the saving process holds the
 * session, because the saved reply is still running there. Stored next to
 * the state and given back by `load`; a save without it clears it. The
 * session runner sets it on saves that leave a reply running, keeps it
 * alive with `renewLease`, and refuses to treat a running reply as
 * abandoned while its lease lasts.
 */
export type SaveOptions = { audit?: AuditRecord[]; relaxed?: boolean; leaseUntil?: string };

/**
 * Where sessions live between replies. Optimistic concurrency: `save` succeeds
 * only if the stored version still equals `expectedVersion` (0 for a session
 * that does not exist yet) and returns the new version (`expectedVersion + 1`);
 * otherwise it throws `StaleSessionError` and stores nothing, audit
 * records included. `load` refuses a corrupt stored state with
 * `InvalidStateError` and leaves it in place; the state it gives is
 * validated (`decodeStoredState` does both, or `decodeSessionRows` for a
 * store of message rows) and the caller's own, a fresh object each time,
 * except for the messages before the last, which a store with a cache may
 * share between loads: the session runner changes the state in place (the
 * agent changes only the last message in place, and replaces or appends
 * the others) and hands it to the agent without copying or validating it
 * again. `save` must read `state` (serialize it) before its first `await`:
 * the agent goes on changing the live state while a checkpoint is being
 * written. Once saved, the messages before the last may be held by the
 * store as they are: change them by replacing them, never in place.
 *
 * `listAudit` returns a session's audit records in the order they were
 * written (`[]` for an unknown session). It is optional so a minimal store
 * stays small, but a store that leaves it out must say that it drops
 * `options.audit`; every store Parley ships implements it.
 */
export interface SessionStore {
  load(sessionId: string): Promise<StoredSession | undefined>;
  save(
    sessionId: string,
    state: AgentState,
    expectedVersion: number,
    options?: SaveOptions,
  ): Promise<number>;
  listAudit?(sessionId: string): Promise<AuditRecord[]>;
  /**
   * The ids of sessions whose parked reply has a deadline at or before
   * `now` (an ISO timestamp), earliest deadline first, at most `limit`
   * (default 100). Stores keep the deadline of the last saved state next to
   * it (see `parkedDeadline`), so this needs no scan of the states.
   * Optional; `Sessions.expireDue` needs it.
   */
  listDue?(now: string, limit?: number): Promise<string[]>;
  /**
   * Sets the lease of session `sessionId` to `leaseUntil` (an ISO time) if
   * its stored version is still `version`, without changing the state or
   * the version; resolves to whether it did. Need not be durable: a lost
   * renewal only shortens a lease. Optional; without it the runner writes
   * no leases.
   */
  renewLease?(sessionId: string, version: number, leaseUntil: string): Promise<boolean>;
}

/**
 * The deadline a store indexes for a state: the parked reply's `deadline`
 * as `toISOString()` writes it (so ISO texts compare in time order), or
 * `null` when nothing is parked, the reply has no deadline, or it is not a
 * time (such a reply never expires).
 */
export function parkedDeadline(state: AgentState): string | null {
  const reply = state.reply;
  if (reply?.status !== 'parked' || reply.deadline === undefined) return null;
  const time = Date.parse(reply.deadline);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/**
 * The lease a store keeps for `leaseUntil`: the time as `toISOString()`
 * writes it, so stored leases compare in time order; `null` for none.
 * Refuses a text that is no time with `InvalidInputError`, before anything
 * is written.
 */
export function storedLease(leaseUntil: string): string;
export function storedLease(leaseUntil: string | undefined): string | null;
export function storedLease(leaseUntil: string | undefined): string | null {
  if (leaseUntil === undefined) return null;
  const time = typeof leaseUntil === 'string' ? Date.parse(leaseUntil) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new InvalidInputError(
      `A lease must be an ISO time, not ${JSON.stringify(leaseUntil) ?? String(leaseUntil)}.`,
    );
  }
  return new Date(time).toISOString();
}
