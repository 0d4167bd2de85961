import type { AgentState } from '../state/index.js';
import type { AuditRecord } from './audit-record.js';

/** A stored session: its state and the version to pass back to `save`. */
export type StoredSession = { state: AgentState; version: number };

/**
 * What may go with a `save`. `audit`: records describing the decisions the
 * saved state reflects; written in the same transaction as the state, all
 * or none, appended after the session's earlier records.
 */
export type SaveOptions = { audit?: AuditRecord[] };

/**
 * Where sessions live between replies. Optimistic concurrency: `save` succeeds
 * only if the stored version still equals `expectedVersion` (0 for a session
 * that does not exist yet) and returns the new version (`expectedVersion + 1`);
 * otherwise it throws `StaleSessionError` and stores nothing, audit
 * records included. `load` refuses a corrupt stored state with
 * `InvalidStateError` and leaves it in place.
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
}
