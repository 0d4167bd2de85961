import { InvalidStateError } from '../errors/index.js';
import type { AgentState } from './types.js';
import { AGENT_STATE_VERSION } from './types.js';

/**
 * Validates (and migrates forward) a stored or given state. Refuses a
 * corrupt, truncated or future-version state with `InvalidStateError`.
 * (Placeholder: full zod validation lands with the state schema.)
 */
export function parseAgentState(value: unknown, sessionId?: string): AgentState {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidStateError('Agent state must be an object.', { sessionId });
  }
  const version = (value as { schemaVersion?: unknown }).schemaVersion;
  if (version !== AGENT_STATE_VERSION) {
    throw new InvalidStateError(`Unsupported agent state schemaVersion ${String(version)}.`, {
      sessionId,
    });
  }
  return value as AgentState;
}
