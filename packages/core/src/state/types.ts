import type { Msg } from '../message/index.js';
import type { PermissionContext } from '../permission/index.js';

/**
 * The schema version this build writes. Older versions are migrated on load.
 * Version 2 leaves empty lists out of the stored form (see
 * `serializeAgentState`); in memory every field is present.
 */
export const AGENT_STATE_VERSION = 2;

/** A call a running tool raised (`id`), and the call that raised it (`by`). */
export type RaisedCall = { id: string; by: string };

/**
 * The reply in progress. `status: 'parked'` waits for an input event;
 * `status: 'running'` is only ever seen in a checkpoint taken mid-reply (the
 * process may have stopped there). `turnStart` is where the current model
 * turn's blocks begin in the reply message; `executing` lists tool calls whose
 * execution has started and has no result yet.
 */
export type ReplyState = {
  replyId: string;
  status: 'running' | 'parked';
  iterations: number;
  turnStart: number;
  executing: string[];
  /**
   * Calls a running tool raised (a `tool_suspend` chunk): `id` is the raised
   * call, `by` the call that raised it and runs again once it has a result.
   * Absent until a tool suspends.
   */
  raised?: RaisedCall[];
  parkedAt?: string;
  deadline?: string;
  /**
   * The parked reply's span as a W3C `traceparent` (`00-trace-span-flags`),
   * so the resumed reply's span can link to it in another process. Absent
   * when no tracer recorded the park, and in states written before it.
   */
  traceParent?: string;
};

/**
 * Everything an agent needs to go on: the conversation, the permission state
 * (with rules accepted by the user) and the reply in progress, if any.
 * Plain JSON: `JSON.parse(JSON.stringify(state))` resumes the same way.
 */
export type AgentState = {
  schemaVersion: typeof AGENT_STATE_VERSION;
  sessionId: string;
  context: Msg[];
  permission: PermissionContext;
  reply: ReplyState | null;
  /**
   * The application's own data about the session (e.g. the console's model
   * and tools). Parley stores it with the state and never reads it.
   */
  metadata?: Record<string, unknown>;
};

/**
 * A state's head (everything but `context`) as read back from a store's
 * head row: the reply's `replyId` may be absent, as the stored head leaves
 * it out when it is the id of the last message (see `serializeStateHead`);
 * `joinStateHead` fills it in.
 */
export type StoredStateHead = Omit<AgentState, 'context' | 'reply'> & {
  reply: (Omit<ReplyState, 'replyId'> & { replyId?: string }) | null;
};
