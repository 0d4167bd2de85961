import type { AgentState } from '../state/index.js';

/** A stored session: its state and the version to pass back to `save`. */
export type StoredSession = { state: AgentState; version: number };

/**
 * Where sessions live between replies. Optimistic concurrency: `save` succeeds
 * only if the stored version still equals `expectedVersion` (0 for a session
 * that does not exist yet) and returns the new version; otherwise it throws
 * `StaleSessionError` and stores nothing.
 */
export interface SessionStore {
  load(sessionId: string): Promise<StoredSession | undefined>;
  save(sessionId: string, state: AgentState, expectedVersion: number): Promise<number>;
}
