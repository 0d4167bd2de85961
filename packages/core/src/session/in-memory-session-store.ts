import { StaleSessionError } from '../errors/index.js';
import type { AgentState } from '../state/index.js';
import { parseAgentState } from '../state/index.js';
import type { SessionStore, StoredSession } from './session-store.js';

/**
 * A `SessionStore` in process memory, for tests and single-process demos.
 * It keeps JSON text, so what comes back is exactly what a durable store
 * would give: a JSON round trip of what was saved.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, { json: string; version: number }>();

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const stored = this.sessions.get(sessionId);
    if (stored === undefined) return undefined;
    return { state: parseAgentState(JSON.parse(stored.json), sessionId), version: stored.version };
  }

  async save(sessionId: string, state: AgentState, expectedVersion: number): Promise<number> {
    const current = this.sessions.get(sessionId)?.version ?? 0;
    if (current !== expectedVersion) {
      throw new StaleSessionError(sessionId, expectedVersion, current === 0 ? undefined : current);
    }
    const version = current + 1;
    this.sessions.set(sessionId, { json: JSON.stringify(state), version });
    return version;
  }
}
