import { InvalidStateError } from '../errors/index.js';
import type { AgentState } from '../state/index.js';
import type { StoredSession } from './session-store.js';
import { parseAgentState } from '../state/index.js';

/**
 * Turns what a store read back for session `sessionId` into an `AgentState`:
 * parses the JSON text, then validates (and migrates) it with
 * `parseAgentState`. Anything else (not text, not JSON, truncated, an
 * unknown schema version) is refused with `InvalidStateError` carrying the
 * session id; the store leaves the stored text as it is, for a person to look at.
 */
export function decodeStoredState(sessionId: string, text: unknown): AgentState {
  if (typeof text !== 'string') {
    throw new InvalidStateError(`Stored state of session '${sessionId}' is not text.`, {
      sessionId,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InvalidStateError(`Stored state of session '${sessionId}' is not valid JSON.`, {
      sessionId,
      cause,
    });
  }
  return parseAgentState(value, sessionId);
}

/**
 * What a store read back for session `sessionId` as a `StoredSession`: the
 * state decoded by `decodeStoredState`, its version, and its lease when one
 * is set (`null` or `undefined` when none).
 */
export function decodeStoredSession(
  sessionId: string,
  stored: { state: unknown; version: number; leaseUntil?: string | null | undefined },
): StoredSession {
  const session: StoredSession = {
    state: decodeStoredState(sessionId, stored.state),
    version: stored.version,
  };
  if (typeof stored.leaseUntil === 'string') session.leaseUntil = stored.leaseUntil;
  return session;
}
