import { InvalidStateError } from '../errors/index.js';
import { describeSchemaProblem } from '../event/schema-problem.js';
import { migrateAgentState, stateProblemMessage } from './migrations.js';
import { agentStateSchema } from './schema.js';
import { compactAgentState } from './stored-form.js';
import type { AgentState } from './types.js';

/**
 * Validates a stored or given state, migrating an older `schemaVersion`
 * forward first. Reads the full form and the compact stored form alike and
 * returns the full form (every list present). Refuses a corrupt, truncated
 * or future-version state with `InvalidStateError`, whose message names the
 * session (when given) and the bad field, e.g. `Invalid agent state of
 * session 's1' at context.3.content.0.state: expected one of ...`.
 * @example const state = parseAgentState(JSON.parse(text), sessionId);
 */
export function parseAgentState(value: unknown, sessionId?: string): AgentState {
  const migrated = migrateAgentState(value, { sessionId });
  const parsed = agentStateSchema.safeParse(migrated);
  if (parsed.success) return parsed.data;
  // Parsed again with the received values in the issues, only to describe
  // the problem: zod parses several times slower with `reportInput`.
  const result = agentStateSchema.safeParse(migrated, { reportInput: true });
  if (result.success) return result.data;
  const { path, problem } = describeSchemaProblem(result.error);
  throw new InvalidStateError(stateProblemMessage(sessionId, path, problem), {
    sessionId,
    cause: result.error,
  });
}

/**
 * The JSON text of a state, for a store or a file, in the compact stored form:
 * the empty lists of the permission context and of the reply are left out
 * (see `compactAgentState`). `parseAgentState` reads it back (after
 * `JSON.parse`) to an equal state, with those lists filled in.
 */
export function serializeAgentState(state: AgentState): string {
  return JSON.stringify(compactAgentState(state));
}
