import { z } from 'zod';
import { messageSchema, metadataSchema, permissionRuleSchema } from '../message/index.js';
import type { PermissionContext } from '../permission/index.js';
import { findStateProblems } from './invariants.js';
import type { AgentState, ReplyState, StoredStateHead } from './types.js';
import { AGENT_STATE_VERSION } from './types.js';

// Strict objects: a stored state with keys this version does not know is
// corrupt or from another version, and must not be half-read.

/**
 * A list the stored form leaves out when it is empty (see `compactAgentState`):
 * absent reads as a new empty list, while `null` or any other value is refused.
 */
const omittableList = <T extends z.ZodType>(item: T) => z.array(item).default(() => []);

const permissionContext = z.strictObject({
  mode: z.enum(['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']),
  workingDirectories: omittableList(z.string()),
  allowRules: omittableList(permissionRuleSchema),
  denyRules: omittableList(permissionRuleSchema),
  askRules: omittableList(permissionRuleSchema),
});

const count = z.number().int().nonnegative();

const replyState = z.strictObject({
  replyId: z.string(),
  status: z.enum(['running', 'parked']),
  iterations: count,
  turnStart: count,
  executing: omittableList(z.string()),
  raised: z.array(z.strictObject({ id: z.string(), by: z.string() })).exactOptional(),
  parkedAt: z.string().exactOptional(),
  deadline: z.string().exactOptional(),
  traceParent: z.string().exactOptional(),
});

const agentStateShape = z.strictObject({
  schemaVersion: z.literal(AGENT_STATE_VERSION),
  sessionId: z.string(),
  context: z.array(messageSchema),
  permission: permissionContext,
  reply: replyState.nullable(),
  metadata: metadataSchema.exactOptional(),
});

/**
 * Validates the head of a stored state: everything but `context` (see
 * `parseStateHead`). Strict, like the whole state's schema; the invariants
 * that tie the reply to the last message are checked once the messages are
 * joined to it (`joinStateHead`).
 */
export const agentStateHeadSchema: z.ZodType<Omit<AgentState, 'context'>> = agentStateShape.omit({
  context: true,
});

/** The permission context a stored head leaves out: the default mode, no directories, no rules. */
const defaultPermission = (): PermissionContext => ({
  mode: 'default',
  workingDirectories: [],
  allowRules: [],
  denyRules: [],
  askRules: [],
});

/**
 * Validates a head as a store writes it (`serializeStateHead`): the head of
 * `agentStateHeadSchema`, where `permission` may be left out (it is then the
 * default: mode `default`, no directories, no rules) and so may the reply's
 * `replyId` (it is then the id of the last message, which
 * `joinStateHead` fills in). A head in the full form is valid too.
 */
export const storedStateHeadSchema: z.ZodType<StoredStateHead> = agentStateShape
  .omit({ context: true })
  .extend({
    permission: permissionContext.default(defaultPermission),
    reply: replyState.extend({ replyId: z.string().exactOptional() }).nullable(),
  });

/**
 * Validates a `PermissionContext` (the permission part of a stored state),
 * filling in the lists the stored form left out.
 */
export const permissionContextSchema: z.ZodType<PermissionContext> = permissionContext;

/** Validates a `ReplyState` (the reply in progress), filling in `executing` if left out. */
export const replyStateSchema: z.ZodType<ReplyState> = replyState;

/**
 * Validates an `AgentState` of the current `schemaVersion`, in its full or
 * stored (compact) form: its shape, then the invariants the agent relies on
 * to resume (see `findStateProblems`). The result is the full form, with the
 * empty lists the stored form left out filled in. Older versions must be
 * migrated first; `parseAgentState` does both.
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
