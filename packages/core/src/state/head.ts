import { InvalidStateError } from '../errors/index.js';
import { describeSchemaProblem } from '../event/schema-problem.js';
import type { Msg } from '../message/index.js';
import { findReplyProblems } from './invariants.js';
import { migrateAgentState, stateProblemMessage } from './migrations.js';
import { agentStateHeadSchema } from './schema.js';
import { compactAgentState } from './stored-form.js';
import type { AgentState } from './types.js';

/**
 * The head of a state: everything but the conversation (`context`). Stores
 * that keep messages as rows of their own write it as one small text, so a
 * save of a long session does not rewrite the conversation.
 */
export type AgentStateHead = Omit<AgentState, 'context'>;

/**
 * The JSON text of a state's head, in the compact stored form of
 * `serializeAgentState` and without `context`. `parseStateHead` reads it back.
 */
export function serializeStateHead(state: AgentState): string {
  const { context: _context, ...head } = compactAgentState(state);
  return JSON.stringify(head);
}

/**
 * Validates a stored head (migrating an older `schemaVersion` forward first,
 * as `parseAgentState` does) and returns its full form. Refuses anything
 * else with `InvalidStateError` naming the session and the bad field. A
 * head holding a `context` is refused: that is a whole state, not a head.
 */
export function parseStateHead(value: unknown, sessionId: string): AgentStateHead {
  const migrated = migrateAgentState(value, { sessionId });
  const parsed = agentStateHeadSchema.safeParse(migrated);
  if (parsed.success) return parsed.data;
  const { path, problem } = describeSchemaProblem(parsed.error);
  throw new InvalidStateError(stateProblemMessage(sessionId, path, problem), {
    sessionId,
    cause: parsed.error,
  });
}

/**
 * A state from a validated head and its messages, in order. Checks the
 * invariants that tie the reply in progress to the last message (see
 * `findReplyProblems`) and refuses a state that breaks one with
 * `InvalidStateError`. The messages must already be valid, each with its
 * own invariants (`findMessageProblems`; a store checks them when it writes
 * them); they are used as they are, not copied.
 */
export function joinStateHead(head: AgentStateHead, context: Msg[]): AgentState {
  const state: AgentState = { ...head, context };
  const problem = findReplyProblems(state)[0];
  if (problem !== undefined) {
    throw new InvalidStateError(
      stateProblemMessage(head.sessionId, problem.path.join('.'), problem.problem),
      { sessionId: head.sessionId },
    );
  }
  return state;
}
