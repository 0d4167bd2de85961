import type { ChatModel } from '../model/index.js';
import type { PermissionMode, PermissionRule } from '../permission/index.js';
import type { Logger } from '../tool/index.js';
import type { Toolkit } from '../tool/index.js';
import type { AgentState } from '../state/index.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import type { Middleware } from './middleware.js';

/** Why the agent is asking for a checkpoint. */
export type CheckpointReason =
  | 'reply_start'
  | 'resume'
  | 'expire'
  | 'before_tool'
  | 'after_tool'
  | 'after_model'
  | 'park'
  | 'reply_end';

/**
 * Called with the live state whenever it changed in a way worth persisting.
 * It must serialize `state` before its first `await` (the state goes on
 * changing). If it throws, the reply stops there and the error propagates:
 * this is how a store's version check keeps a tool from running twice.
 */
export type Checkpoint = (state: AgentState, reason: CheckpointReason) => Promise<void>;

/** Options of `new Agent(...)` (API.md, "Agent"). */
export type AgentOptions = {
  name?: string;
  systemPrompt?: string;
  model: ChatModel;
  toolkit?: Toolkit;
  permission?: {
    mode?: PermissionMode;
    rules?: PermissionRule[];
    workingDirectories?: string[];
  };
  /** Resume a session: any JSON round trip of `agent.state`. */
  state?: AgentState;
  /** A session id for a new state (ignored when `state` is given). */
  sessionId?: string;
  /** Bound on reasoning-acting rounds per reply (default 50). */
  maxIters?: number;
  middlewares?: Middleware[];
  checkpoint?: Checkpoint;
  logger?: Logger;
  /**
   * How long (ms) a parked reply waits for an answer. Parking then sets
   * `reply.deadline`; once it passed, the next touch settles the reply as
   * `onExpire` says, and a late answer is refused with `ReplyExpiredError`.
   */
  parkTimeout?: number;
  /**
   * What expiry does to the waiting calls (default `'deny'`): `'deny'`
   * closes them as denied (the model is told the request expired) and the
   * reply goes on; `'interrupt'` ends the reply as `USER_INTERRUPT` would.
   */
  onExpire?: 'deny' | 'interrupt';
  /** The time deadlines are set and judged by (default: the system clock). */
  clock?: () => Date;
  /** OpenTelemetry tracing: the tracer and whether content goes on spans (docs/guides/tracing.md). */
  telemetry?: TelemetryOptions;
};

/** Per-call options of `reply`/`replyStream`. */
export type ReplyOptions = {
  /** Aborting cancels the reply: open calls are closed as interrupted. */
  signal?: AbortSignal;
  /** Who answered the parked reply this call resumes (put on the resumed reply's span). */
  approver?: string;
};
