import { tracedStore } from '../../telemetry/store-trace.js';
import type { ReplyInput, ReplyOptions } from '../../agent/index.js';
import {
  ConcurrentResumeError,
  InvalidInputError,
  SessionBusyError,
  StaleSessionError,
} from '../../errors/index.js';
import type { AgentEvent } from '../../event/index.js';
import { looksLikeInputEvent } from '../../event/index.js';
import type { Msg } from '../../message/index.js';
import { hasLoneSurrogate } from '../../message/index.js';
import type { AuditRecord } from '../audit-record.js';
import type { SessionStore, StoredSession } from '../session-store.js';
import { StoreCapabilityError } from '../store-errors.js';
import type { MayAnswer } from './answer-check.js';
import type { RuleToRevoke } from './revoke-rule.js';
import { operatorRule, revokeStoredRule } from './revoke-rule.js';
import { SessionCall } from './session-call.js';
import type { PersistSchedule, SessionAgentOptions, SessionCallSetup } from './session-call.js';

/**
 * Options of `new Sessions(...)`. `agent`: the options every session's agent
 * is built with (as for `new Agent`, without `state`, `sessionId`,
 * `checkpoint` and `clock`, which the runner provides), or a function of the
 * session id that gives them. `clock`: the time deadlines and audit records
 * are stamped with (default: the system clock). `persist`: when the steps
 * between claims, parks and ends are written (see `PersistSchedule`;
 * exactly-once holds with either). `lease` (ms, default 30 000): while a
 * reply runs, its stored state carries a lease this long, renewed every
 * third of it; other processes leave a running reply alone while its lease
 * lasts, and settle it as stopped once it has run out. 0 writes no leases
 * (a running reply is then settled by the next call that touches it). The
 * store must implement `renewLease`, else no leases are written.
 * `mayAnswer`: asked about each answer to a waiting tool call (a
 * confirmation, a denial, an external result, an interrupt) with the
 * call's `approver`, before anything is applied; a refusal rejects the
 * whole answer with `AnswerNotAllowedError` and leaves the reply parked.
 * Without it, anyone who can reach the runner may answer.
 * `keptRules`: which rules a confirmation may keep: `'any'` (default, for
 * a program that answers for itself) or `'suggested'` (only rules
 * suggested with the call it confirms; others are refused with
 * `InvalidEventError` and nothing is applied), for answers that come from
 * people over a network, as the HTTP service's do.
 * `fixedRuleSources`: rule sources, besides `'policy'`, that mark a rule as
 * the operator's: `revokeRule` refuses those with `FixedRuleError`.
 */
export type SessionsOptions = {
  store: SessionStore;
  agent: SessionAgentOptions | ((sessionId: string) => SessionAgentOptions);
  clock?: () => Date;
  persist?: PersistSchedule;
  lease?: number;
  mayAnswer?: MayAnswer;
  keptRules?: 'any' | 'suggested';
  fixedRuleSources?: readonly string[];
};

/** The default `lease`: long enough to ride out a pause, short enough to recover from a crash. */
const DEFAULT_LEASE_MS = 30_000;

/**
 * Per-call options of `Sessions.reply` / `replyStream`. `approver`: who is
 * answering (an id from your auth), written into the audit records of the
 * decisions this call applies. `signal`: aborting cancels the reply.
 */
export type SessionReplyOptions = { approver?: string; signal?: AbortSignal };

/**
 * A reply a `Sessions` is running: the reply its input answers (if it is an
 * answer), how to stop it, and when it is over.
 */
type LiveCall = { answering: string | undefined; stop: AbortController; over: Promise<void> };

/** What `expireDue` did: settled, left alone (answered meanwhile, not due after all), failed. */
export type ExpirySweep = {
  expired: string[];
  skipped: string[];
  failed: { sessionId: string; error: unknown }[];
};

/**
 * Runs agents on stored sessions. Each call loads the session, runs one
 * reply (or resumes the parked one) on a fresh agent, and saves the state
 * after every step with the version it last read, together with the audit
 * records of the decisions that step made. Two callers answering the same
 * parked reply cannot both win: the loser gets `ConcurrentResumeError` (or
 * `StaleReplyError` when the winner's claim was already stored) and none of
 * its tools run. A tool call claimed by a process that stopped is never run
 * again (unless its tool is `idempotent`). The runner keeps nothing between
 * calls, and what a store caches is checked against the stored version on
 * every load, so any process can serve any call.
 *
 * Within one `Sessions`, a session runs one reply at a time: a call on a
 * session it is running is refused at once with `SessionBusyError` (or,
 * for a second answer to the reply being resumed, `ConcurrentResumeError`),
 * and `cancel` stops the running reply. Across processes the store's
 * version check decides, as above.
 *
 * @example
 * const sessions = new Sessions({ store, agent: { name: 'assistant', model, toolkit, parkTimeout: 3_600_000 } });
 * const waiting = await sessions.reply('s1', 'Write a note');
 * // later, maybe in another process:
 * await sessions.reply('s1', userConfirmResultEvent({ replyId, confirmResults }), { approver: 'ada' });
 */
export class Sessions {
  private readonly store: SessionStore;
  private readonly agentOptions: SessionsOptions['agent'];
  private readonly clock: () => Date;
  private readonly persist: PersistSchedule;
  private readonly lease: number;
  private readonly mayAnswer: MayAnswer | undefined;
  private readonly keptRules: 'any' | 'suggested';
  private readonly fixedRuleSources: readonly string[];
  private readonly live = new Map<string, LiveCall>();

  constructor(options: SessionsOptions) {
    // A span per load and save (non-recording, nearly free, with no SDK installed).
    this.store = tracedStore(options.store);
    this.agentOptions = options.agent;
    this.clock = options.clock ?? (() => new Date());
    this.persist = options.persist ?? 'steps';
    const lease = options.lease ?? DEFAULT_LEASE_MS;
    if (!Number.isFinite(lease) || lease < 0) {
      throw new InvalidInputError(`The lease must be a number of milliseconds ≥ 0, not ${lease}.`);
    }
    this.lease = lease;
    this.mayAnswer = options.mayAnswer;
    this.keptRules = options.keptRules ?? 'any';
    this.fixedRuleSources = [...(options.fixedRuleSources ?? [])];
  }

  /**
   * Runs a reply on session `sessionId` (created if it does not exist) and
   * resolves to its final message, or to the waiting notice when it parks.
   * `input` is what `Agent.reply` takes: new input, or an answer to the
   * parked reply. A model failure rejects after the reply was closed and saved.
   */
  async reply(
    sessionId: string,
    input?: ReplyInput,
    options: SessionReplyOptions = {},
  ): Promise<Msg> {
    const { signal, leave } = this.enter(sessionId, input);
    try {
      const call = await this.open(sessionId, input, options);
      return await call.reply(call.input, agentCallOptions(options, signal));
    } finally {
      leave();
    }
  }

  /**
   * `reply` as a stream of events. Leaving the loop early cancels the reply;
   * the cancelled state is saved.
   */
  async *replyStream(
    sessionId: string,
    input?: ReplyInput,
    options: SessionReplyOptions = {},
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const { signal, leave } = this.enter(sessionId, input);
    try {
      const call = await this.open(sessionId, input, options);
      yield* call.replyStream(call.input, agentCallOptions(options, signal));
    } finally {
      leave();
    }
  }

  /**
   * Stops the reply this `Sessions` is running on `sessionId`, as aborting
   * its `signal` would, and resolves once it has stopped and its state is
   * saved: to `true`, or to `false` when no reply of that session was
   * running here (one running in another process is not reached).
   */
  async cancel(sessionId: string): Promise<boolean> {
    const running = this.live.get(sessionId);
    if (running === undefined) return false;
    running.stop.abort();
    await running.over;
    return true;
  }

  /** The stored session (`undefined` when there is none). */
  load(sessionId: string): Promise<StoredSession | undefined> {
    return this.store.load(sessionId);
  }

  /** The audit trail of a session, in the order it was written. */
  audit(sessionId: string): Promise<AuditRecord[]> {
    if (this.store.listAudit === undefined) {
      throw new StoreCapabilityError('listAudit', 'Sessions.audit');
    }
    return this.store.listAudit(sessionId);
  }

  /**
   * Takes a rule back from the permission context of `sessionId` (an
   * "always allow" a person added, or any rule the session holds): the
   * state is saved without it, with the version just read, together with a
   * `rule_revoked` audit record naming `options.approver` as who revoked it.
   * Refused with nothing stored: `SessionBusyError` while a reply of the
   * session runs (here, or elsewhere under a lease), `UnknownRuleError`
   * when the session holds no such rule, `FixedRuleError` when the operator
   * set it (its source is `'policy'` or one of `fixedRuleSources`),
   * `StaleSessionError` when another
   * write got in first. A parked reply stays parked; its next calls are
   * decided without the rule.
   */
  async revokeRule(
    sessionId: string,
    rule: RuleToRevoke,
    options: { approver?: string } = {},
  ): Promise<AuditRecord> {
    const approver = options.approver;
    checkApprover(approver);
    const { leave } = this.enter(sessionId, undefined);
    try {
      const fixed = this.fixedRuleSources;
      return await revokeStoredRule(
        this.store,
        sessionId,
        rule,
        approver ?? null,
        this.clock(),
        (held) => operatorRule(held, fixed),
      );
    } finally {
      leave();
    }
  }

  /**
   * Settles the parked replies whose deadline is at or before `now`, as
   * their agent's `onExpire` says (deny: the model hears the request expired
   * and goes on; interrupt: the reply ends). Meant for a timer in a service;
   * replies are also settled when next touched. A session answered in the
   * meantime is skipped. Needs a store with `listDue`.
   */
  async expireDue(
    now: Date = this.clock(),
    options: { limit?: number } = {},
  ): Promise<ExpirySweep> {
    if (this.store.listDue === undefined) {
      throw new StoreCapabilityError('listDue', 'Sessions.expireDue');
    }
    const ids = await this.store.listDue(now.toISOString(), options.limit);
    const sweep: ExpirySweep = { expired: [], skipped: [], failed: [] };
    for (const sessionId of ids) {
      if (this.live.has(sessionId)) {
        sweep.skipped.push(sessionId);
        continue;
      }
      try {
        let settled = false;
        for await (const _event of this.expireStream(sessionId, now)) settled = true;
        (settled ? sweep.expired : sweep.skipped).push(sessionId);
      } catch (error) {
        if (
          error instanceof ConcurrentResumeError ||
          error instanceof StaleSessionError ||
          error instanceof SessionBusyError
        ) {
          sweep.skipped.push(sessionId);
        } else {
          sweep.failed.push({ sessionId, error });
        }
      }
    }
    return sweep;
  }

  /**
   * Settles the parked reply of `sessionId` if its deadline is at or before
   * `now`, as `expireDue` does for each session it finds, and yields the
   * events that makes (the waiting calls closed and, with `onExpire: 'deny'`,
   * the rest of the reply), so that a service can show and store them. Yields
   * nothing when the reply is not parked, not due, or running elsewhere. A
   * session this `Sessions` is running is refused with `SessionBusyError`;
   * while the expiry runs, an answer to the reply is refused with
   * `ConcurrentResumeError`.
   */
  async *expireStream(
    sessionId: string,
    now: Date = this.clock(),
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const stored = await this.store.load(sessionId);
    const { leave } = this.enter(sessionId, undefined, stored?.state.reply?.replyId);
    try {
      const call = await SessionCall.openExpired(this.setup(sessionId, now, null));
      if (call === undefined) return;
      yield* call.replyStream(undefined, {});
    } finally {
      leave();
    }
  }

  /**
   * Marks `sessionId` as running here until `leave` is called, or refuses
   * the call when it already is.
   */
  private enter(
    sessionId: string,
    input: ReplyInput | undefined,
    answering: string | undefined = answeredReply(input),
  ): { signal: AbortSignal; leave: () => void } {
    const running = this.live.get(sessionId);
    if (running !== undefined) {
      if (answering !== undefined && answering === running.answering) {
        throw new ConcurrentResumeError(sessionId, answering);
      }
      throw new SessionBusyError(sessionId);
    }
    const stop = new AbortController();
    let done: () => void = () => undefined;
    const over = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.live.set(sessionId, { answering, stop, over });
    const leave = (): void => {
      this.live.delete(sessionId);
      done();
    };
    return { signal: stop.signal, leave };
  }

  private async open(
    sessionId: string,
    input: ReplyInput | undefined,
    options: SessionReplyOptions,
  ): Promise<SessionCall> {
    const approver = options.approver;
    checkApprover(approver);
    return SessionCall.open(this.setup(sessionId, this.clock(), approver ?? null), input);
  }

  private setup(sessionId: string, now: Date, approver: string | null): SessionCallSetup {
    const agent =
      typeof this.agentOptions === 'function' ? this.agentOptions(sessionId) : this.agentOptions;
    return {
      store: this.store,
      sessionId,
      agent,
      now,
      clock: this.clock,
      approver,
      persist: this.persist,
      lease: this.lease,
      mayAnswer: this.mayAnswer,
      keptRules: this.keptRules,
    };
  }
}

/** The agent's options of a call: its own signal, and the caller's if given; the approver, for the trace. */
function agentCallOptions(options: SessionReplyOptions, stop: AbortSignal): ReplyOptions {
  const signal = options.signal === undefined ? stop : AbortSignal.any([options.signal, stop]);
  return options.approver === undefined ? { signal } : { signal, approver: options.approver };
}

/** The reply an input answers, when it is an answer (an input event naming one). */
function answeredReply(input: ReplyInput | undefined): string | undefined {
  if (!looksLikeInputEvent(input) || !('replyId' in input)) return undefined;
  return typeof input.replyId === 'string' ? input.replyId : undefined;
}

/**
 * Refuses an approver id that is empty, not a string, or not well-formed
 * Unicode (a store keeps UTF-8, where a lone surrogate becomes U+FFFD and
 * two ids would read back the same).
 */
function checkApprover(approver: unknown): void {
  if (approver === undefined) return;
  if (typeof approver !== 'string' || approver === '') {
    throw new InvalidInputError('The approver must be a non-empty string (an id from your auth).');
  }
  if (hasLoneSurrogate(approver)) {
    throw new InvalidInputError(
      'The approver must be well-formed Unicode (it has a lone surrogate), so that it is stored exactly.',
    );
  }
}
