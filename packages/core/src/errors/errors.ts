import { ParleyError } from './parley-error.js';

/** The input given to `reply` is not acceptable (e.g. a message carrying tool calls). */
export class InvalidInputError extends ParleyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_input', message, options);
  }
}

/**
 * A tool's name is one the model providers refuse. OpenAI and Anthropic take
 * only `^[a-zA-Z0-9_-]{1,64}$` (see `TOOL_NAME_PATTERN`), and one bad name
 * fails every request, so `tool()` and `Toolkit` refuse it up front.
 */
export class InvalidToolNameError extends ParleyError {
  /** The name that was refused. */
  readonly toolName: string;
  constructor(toolName: string) {
    super(
      'invalid_tool_name',
      `Tool name ${JSON.stringify(toolName)} is not allowed: a tool name takes 1 to 64 characters, each a letter (a-z, A-Z), a digit, '_' or '-' (model providers refuse any other name).`,
    );
    this.toolName = toolName;
  }
}

/** The agent is parked, and the input was not a resuming event. */
export class AgentParkedError extends ParleyError {
  constructor(message: string) {
    super('agent_parked', message);
  }
}

/** A resuming event arrived while the agent was not waiting for that kind of event. */
export class NotWaitingError extends ParleyError {
  constructor(message: string) {
    super('not_waiting', message);
  }
}

/** A resuming event named tool calls that are not waiting for it. */
export class UnknownToolCallError extends ParleyError {
  readonly toolCallIds: string[];
  constructor(message: string, toolCallIds: string[]) {
    super('unknown_tool_call', message);
    this.toolCallIds = toolCallIds;
  }
}

/**
 * A resuming event names a reply that is not the parked one (an old tab, a
 * replayed request), or one that is no longer parked because it was already
 * resumed (`message` then says so).
 */
export class StaleReplyError extends ParleyError {
  readonly replyId: string;
  readonly parkedReplyId: string | null;
  constructor(replyId: string, parkedReplyId: string | null, message?: string) {
    super(
      'stale_reply',
      message ??
        (parkedReplyId === null
          ? `Reply '${replyId}' is not parked: the agent has no parked reply.`
          : `Reply '${replyId}' is not the parked reply (the parked reply is '${parkedReplyId}').`),
    );
    this.replyId = replyId;
    this.parkedReplyId = parkedReplyId;
  }
}

/** `reply`/`replyStream` was called while another reply of the same agent is running. */
export class AgentBusyError extends ParleyError {
  constructor() {
    super('agent_busy', 'The agent is already running a reply; wait for it to finish or park.');
  }
}

/** An event (input or output) does not have the documented shape. `path` names the bad field. */
export class InvalidEventError extends ParleyError {
  readonly path: string;
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super('invalid_event', `Invalid event: ${path === '' ? '(root)' : path}: ${problem}`, options);
    this.path = path;
  }
}

/** An externally executed tool result was refused (bad metadata, or an answer that does not fit the question). */
export class InvalidToolResultError extends ParleyError {
  readonly toolCallId: string;
  constructor(toolCallId: string, message: string) {
    super('invalid_tool_result', message);
    this.toolCallId = toolCallId;
  }
}

/** A stored or given `AgentState` is corrupt, truncated or from an unknown schema version. */
export class InvalidStateError extends ParleyError {
  readonly sessionId: string | undefined;
  constructor(message: string, options?: { cause?: unknown; sessionId?: string | undefined }) {
    super('invalid_state', message, options);
    this.sessionId = options?.sessionId;
  }
}

/** A `SessionStore.save` lost an optimistic-concurrency race. */
export class StaleSessionError extends ParleyError {
  readonly sessionId: string;
  readonly expectedVersion: number;
  readonly actualVersion: number | undefined;
  constructor(sessionId: string, expectedVersion: number, actualVersion: number | undefined) {
    super(
      'stale_session',
      `Session '${sessionId}' was saved by someone else: expected version ${expectedVersion}, found ${actualVersion ?? 'none'}.`,
    );
    this.sessionId = sessionId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/**
 * A model call failed. Provider adapters throw this (or a subclass) with the
 * HTTP `status` when there is one and whether retrying may help.
 */
export class ModelError extends ParleyError {
  readonly status: number | undefined;
  readonly isRetryable: boolean;
  constructor(
    message: string,
    options: {
      status?: number | undefined;
      isRetryable?: boolean;
      cause?: unknown;
      code?: string;
    } = {},
  ) {
    super(options.code ?? 'model_error', message, { cause: options.cause });
    this.status = options.status;
    this.isRetryable = options.isRetryable ?? false;
  }
}

/**
 * Two callers resumed the same parked reply at the same moment and this one
 * lost: its answer was not applied and none of its tool calls ran. The
 * other caller's answer stands; reload the session to see it.
 */
export class ConcurrentResumeError extends ParleyError {
  readonly sessionId: string;
  readonly replyId: string;
  constructor(sessionId: string, replyId: string, options?: { cause?: unknown }) {
    super(
      'concurrent_resume',
      `Reply '${replyId}' of session '${sessionId}' was resumed by someone else at the same time; this answer was not applied.`,
      options,
    );
    this.sessionId = sessionId;
    this.replyId = replyId;
  }
}

/**
 * An answer arrived for a parked reply whose deadline (`parkTimeout`) had
 * passed. The reply was settled as expired instead (its waiting calls
 * closed, as `onExpire` says); the answer was not applied.
 */
export class ReplyExpiredError extends ParleyError {
  readonly sessionId: string;
  readonly replyId: string;
  readonly deadline: string;
  constructor(sessionId: string, replyId: string, deadline: string) {
    super(
      'reply_expired',
      `Reply '${replyId}' of session '${sessionId}' expired at ${deadline}; the answer came too late and was not applied.`,
    );
    this.sessionId = sessionId;
    this.replyId = replyId;
    this.deadline = deadline;
  }
}

/**
 * A call of `Sessions` named a session that is running a reply: in this
 * `Sessions`, or in another process whose lease on it has not run out.
 * Nothing was applied; wait for the running reply to park or finish, or
 * stop it (`Sessions.cancel`) where it runs. `leaseUntil`: when the other
 * process's lease runs out unless renewed (an ISO time; absent when the
 * reply runs in this process), e.g. for an HTTP `Retry-After`.
 */
export class SessionBusyError extends ParleyError {
  readonly sessionId: string;
  readonly leaseUntil: string | undefined;
  constructor(sessionId: string, leaseUntil?: string) {
    super(
      'session_busy',
      `Session '${sessionId}' is running a reply` +
        (leaseUntil === undefined ? '' : ` in another process (its lease runs to ${leaseUntil})`) +
        '; wait for it to park or finish, or cancel it where it runs.',
    );
    this.sessionId = sessionId;
    this.leaseUntil = leaseUntil;
  }
}

/**
 * The session runner's `mayAnswer` check refused an answer: this approver
 * may not answer that tool call. Nothing of the answer was applied; the
 * reply stays parked for someone who may.
 */
export class AnswerNotAllowedError extends ParleyError {
  readonly sessionId: string;
  readonly replyId: string;
  readonly toolCallId: string;
  readonly approver: string | null;
  constructor(
    sessionId: string,
    replyId: string,
    toolCall: { id: string; name: string },
    approver: string | null,
  ) {
    super(
      'answer_not_allowed',
      `${approver === null ? 'A caller with no approver' : `Approver '${approver}'`} may not answer ` +
        `tool call '${toolCall.id}' (${toolCall.name}) of reply '${replyId}' in session ` +
        `'${sessionId}'; nothing was applied.`,
    );
    this.sessionId = sessionId;
    this.replyId = replyId;
    this.toolCallId = toolCall.id;
    this.approver = approver;
  }
}

/**
 * `Sessions.revokeRule` named a rule the session's permission context does
 * not hold (or a session that does not exist). Nothing was stored.
 */
export class UnknownRuleError extends ParleyError {
  readonly sessionId: string;
  constructor(
    sessionId: string,
    rule: { toolName: string; ruleContent: string | null; behavior: string },
  ) {
    super(
      'unknown_rule',
      `Session '${sessionId}' has no ${rule.behavior} rule for ${rule.toolName}` +
        (rule.ruleContent === null ? '' : `(${rule.ruleContent})`) +
        '; nothing was revoked.',
    );
    this.sessionId = sessionId;
  }
}

/**
 * `Sessions.revokeRule` named a rule the operator set (its `source` is
 * `'policy'`, or one of `SessionsOptions.fixedRuleSources`): an answer or a
 * route cannot take it back. Nothing was stored.
 */
export class FixedRuleError extends ParleyError {
  readonly sessionId: string;
  constructor(
    sessionId: string,
    rule: { toolName: string; ruleContent: string | null; behavior: string; source: string },
  ) {
    super(
      'fixed_rule',
      `The ${rule.behavior} rule for ${rule.toolName}` +
        (rule.ruleContent === null ? '' : `(${rule.ruleContent})`) +
        ` of session '${sessionId}' was set by the operator (source '${rule.source}'); ` +
        'it cannot be revoked here, and nothing was revoked.',
    );
    this.sessionId = sessionId;
  }
}
