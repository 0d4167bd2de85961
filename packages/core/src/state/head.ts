import { InvalidStateError } from '../errors/index.js';
import { describeSchemaProblem } from '../event/schema-problem.js';
import type { Msg } from '../message/index.js';
import { findReplyProblems } from './invariants.js';
import { migrateAgentState, stateProblemMessage } from './migrations.js';
import { storedStateHeadSchema } from './schema.js';
import { compactAgentState } from './stored-form.js';
import type { AgentState, StoredStateHead } from './types.js';

/**
 * The head of a state: everything but the conversation (`context`). Stores
 * that keep messages as rows of their own write it as one small text, so a
 * save of a long session does not rewrite the conversation.
 */
export type AgentStateHead = Omit<AgentState, 'context'>;

/**
 * The JSON text of a state's head, in the compact stored form of
 * `serializeAgentState` and without `context`, leaving out what a load
 * gets back without it: the permission context when it is the default
 * (mode `default`, no directories, no rules), and the reply's `replyId` when
 * it is the id of the last message (as it must be: see `findReplyProblems`).
 * `parseStateHead` and `joinStateHead` read it back.
 */
export function serializeStateHead(state: AgentState): string {
  const { context, permission, reply, ...rest } = compactAgentState(state);
  const head: Record<string, unknown> = rest;
  if (!isDefaultPermission(permission)) head['permission'] = permission;
  if (reply !== null && reply.replyId === context.at(-1)?.id) {
    const { replyId: _replyId, ...withoutId } = reply;
    head['reply'] = withoutId;
  } else {
    head['reply'] = reply;
  }
  return JSON.stringify(head);
}

/** Whether a (compact) permission context is the default one: mode `default`, no lists. */
function isDefaultPermission(permission: object): boolean {
  return (
    Object.keys(permission).length === 1 && 'mode' in permission && permission.mode === 'default'
  );
}

/**
 * Validates a stored head (migrating an older `schemaVersion` forward first,
 * as `parseAgentState` does) and returns its full form, except that the
 * reply's `replyId` stays absent when the stored head left it out (see
 * `serializeStateHead`; `joinStateHead` fills it in). Refuses anything
 * else with `InvalidStateError` naming the session and the bad field. A
 * head holding a `context` is refused: that is a whole state, not a head.
 */
export function parseStateHead(value: unknown, sessionId: string): StoredStateHead {
  const migrated = migrateAgentState(value, { sessionId });
  const parsed = storedStateHeadSchema.safeParse(migrated);
  if (parsed.success) return parsed.data;
  const { path, problem } = describeSchemaProblem(parsed.error);
  throw new InvalidStateError(stateProblemMessage(sessionId, path, problem), {
    sessionId,
    cause: parsed.error,
  });
}

/**
 * A state from a validated head and its messages, in order. A reply whose
 * `replyId` the head left out gets the id of the last message. Checks the
 * invariants that tie the reply in progress to the last message (see
 * `findReplyProblems`) and refuses a state that breaks one with
 * `InvalidStateError`. The messages must already be valid, each with its
 * own invariants (`findMessageProblems`; a store checks them when it writes
 * them); they are used as they are, not copied.
 */
export function joinStateHead(head: StoredStateHead, context: Msg[]): AgentState {
  const { reply, ...rest } = head;
  const state: AgentState = {
    ...rest,
    context,
    reply: reply === null ? null : { ...reply, replyId: reply.replyId ?? context.at(-1)?.id ?? '' },
  };
  const problem = findReplyProblems(state)[0];
  if (problem !== undefined) {
    throw new InvalidStateError(
      stateProblemMessage(head.sessionId, problem.path.join('.'), problem.problem),
      { sessionId: head.sessionId },
    );
  }
  return state;
}
