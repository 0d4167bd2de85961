import { z } from 'zod';
import { messageSchema, metadataSchema, permissionRuleSchema } from '../message/index.js';
import type { PermissionContext } from '../permission/index.js';
import { findStateProblems } from './invariants.js';
import type { AgentState, ReplyState } from './types.js';
import { AGENT_STATE_VERSION } from './types.js';

// Strict objects: a stored state with keys this version does not know is
// corrupt or from another version, and must not be half-read.

const permissionContext = z.strictObject({
  mode: z.enum(['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']),
  workingDirectories: z.array(z.string()),
  allowRules: z.array(permissionRuleSchema),
  denyRules: z.array(permissionRuleSchema),
  askRules: z.array(permissionRuleSchema),
});

const count = z.number().int().nonnegative();

const replyState = z.strictObject({
  replyId: z.string(),
  status: z.enum(['running', 'parked']),
  iterations: count,
  turnStart: count,
  executing: z.array(z.string()),
  parkedAt: z.string().exactOptional(),
  deadline: z.string().exactOptional(),
});

const agentStateShape = z.strictObject({
  schemaVersion: z.literal(AGENT_STATE_VERSION),
  sessionId: z.string(),
  context: z.array(messageSchema),
  permission: permissionContext,
  reply: replyState.nullable(),
  metadata: metadataSchema.exactOptional(),
});

/** Validates a `PermissionContext` (the permission part of a stored state). */
export const permissionContextSchema: z.ZodType<PermissionContext> = permissionContext;

/** Validates a `ReplyState` (the reply in progress). */
export const replyStateSchema: z.ZodType<ReplyState> = replyState;

/**
 * Validates an `AgentState` of the current `schemaVersion`: its shape, then
 * the invariants the agent relies on to resume (see `findStateProblems`).
 * Older versions must be migrated first; `parseAgentState` does both.
 */
export const agentStateSchema: z.ZodType<AgentState> = agentStateShape.superRefine(
  (state, context) => {
    for (const { path, problem } of findStateProblems(state)) {
      context.addIssue({ code: 'custom', path, message: problem, input: state });
    }
  },
);

// Compile-time check: each schema infers exactly the declared type.
type Flatten<T> = T extends (infer E)[]
  ? Flatten<E>[]
  : T extends object
    ? { [K in keyof T]: Flatten<T[K]> }
    : T;
type Same<A, B> =
  (<G>() => G extends Flatten<A> ? 1 : 2) extends <G>() => G extends Flatten<B> ? 1 : 2
    ? true
    : false;
type Expect<T extends true> = T;
type _StateSchemasMatchTypes = [
  Expect<Same<z.infer<typeof permissionContext>, PermissionContext>>,
  Expect<Same<z.infer<typeof replyState>, ReplyState>>,
  Expect<Same<z.infer<typeof agentStateShape>, AgentState>>,
];
