import { Agent, isReplyExpired } from '../../agent/index.js';
import type {
  AgentOptions,
  Checkpoint,
  CheckpointReason,
  Middleware,
  ReplyInput,
  ReplyOptions,
} from '../../agent/index.js';
import { adoptInput, adoptState } from '../../agent/adopt.js';
import { readsOnly } from '../../agent/middleware.js';
import { settleStoppedReply } from '../../agent/recovery.js';
import {
  ConcurrentResumeError,
  InvalidStateError,
  ReplyExpiredError,
  SessionBusyError,
  StaleReplyError,
  StaleSessionError,
} from '../../errors/index.js';
import type { AgentEvent, InputEvent } from '../../event/index.js';
import type { Msg } from '../../message/index.js';
import type { ChatModel, ChatRequest, ChatChunk } from '../../model/index.js';
import { looksLikeInputEvent, parseInputEvent } from '../../event/index.js';
import type { AgentState } from '../../state/index.js';
import { Toolkit } from '../../tool/index.js';
import type { SaveOptions, SessionStore, StoredSession } from '../session-store.js';
import { checkKeptRules, checkMayAnswer } from './answer-check.js';
import type { MayAnswer } from './answer-check.js';
import { AuditCollector } from './audit-collector.js';
import { LeaseKeeper } from './lease-keeper.js';

/** The agent options a session runner builds its agents from (the rest is its own). */
export type SessionAgentOptions = Omit<
  AgentOptions,
  'state' | 'sessionId' | 'checkpoint' | 'clock'
>;

/** What one call of the runner works with. */
export type SessionCallSetup = {
  store: SessionStore;
  sessionId: string;
  agent: SessionAgentOptions;
  /** The time of this call: deadlines are set and judged by it. */
  now: Date;
  clock: () => Date;
  approver: string | null;
  /** `'steps'`: held steps are also written before the model is called. */
  persist: PersistSchedule;
  /** How long (ms) a running reply's lease lasts unless renewed; 0 writes none. */
  lease: number;
  /** Who may answer what (every answer is allowed without it). */
  mayAnswer: MayAnswer | undefined;
  /** Which rules a confirmation may keep (`SessionsOptions.keptRules`). */
  keptRules: 'any' | 'suggested';
};

/**
 * When the steps between claims, parks and ends are written: `'steps'`
 * (default) also before every model call, so a process that dies while the
 * model runs loses nothing; `'boundaries'` only with the next claim, park
 * or end, which saves two writes per round trip, and a process that dies
 * mid-reply loses the steps since (the user's message, a tool's result:
 * the call is then closed as "outcome unknown", never run twice).
 */
export type PersistSchedule = 'steps' | 'boundaries';

/**
 * Steps written at once and in full (not `relaxed`): the claim before a tool
 * runs, the park before anyone is asked, the end. The other steps are held
 * and written with the next of these, or before the model is called,
 * whichever comes first, as a relaxed save.
 */
const STRICT_REASONS: ReadonlySet<CheckpointReason> = new Set<CheckpointReason>([
  'before_tool',
  'park',
  'reply_end',
]);

/**
 * One call of the session runner: the session as loaded, and an agent on it
 * whose checkpoints save with the last version read. The first save of a
 * call that answers a parked reply is its claim: if it loses the version
 * race, another caller answered first, and `ConcurrentResumeError` stops the
 * reply before any of its tools ran.
 *
 * Steps between those that exactly-once rests on are held, not written at
 * once: the next save carries them, and nothing slow or external happens
 * before it (a tool runs only after its claim is written; the model is
 * called only after the held steps are written). So a round trip costs five
 * writes, not eight, and a crash loses at most work that is redone.
 */
export class SessionCall {
  readonly agent: Agent;
  /** What to give the agent: the call's input, an answer already parsed. */
  readonly input: ReplyInput | undefined;
  private readonly setup: SessionCallSetup;
  private readonly collector: AuditCollector;
  /** The reply this call answers, when it answers one. */
  private readonly claimed: string | undefined;
  private version: number;
  private saves = 0;
  private lastReason: CheckpointReason | undefined;
  /** Steps checkpointed but not written yet. */
  private held = false;
  /** Why a write failed (a lost race, say): later writes fail the same way, unattempted. */
  private failure: { error: unknown } | undefined;
  /** Holds the session by lease while the saved reply runs. */
  private readonly lease: LeaseKeeper;

  private constructor(
    setup: SessionCallSetup,
    loaded: StoredSession | undefined,
    collector: AuditCollector,
    claimed: string | undefined,
    input: ReplyInput | undefined,
  ) {
    this.input = input;
    this.setup = setup;
    this.collector = collector;
    this.lease = new LeaseKeeper({
      store: setup.store,
      sessionId: setup.sessionId,
      lease: setup.lease,
      clock: setup.clock,
      logger: setup.agent.logger,
    });
    this.claimed = claimed;
    this.version = loaded?.version ?? 0;
    const audit: Middleware = readsOnly({
      name: 'parley:audit',
      onCheckPermission: async (context, next) => {
        const decision = await next(context);
        collector.recordDecision(
          context.replyId,
          context.toolCall,
          decision,
          context.confirmedByUser,
        );
        return decision;
      },
    });
    const checkpoint: Checkpoint = (state, reason) => this.checkpoint(state, reason);
    const now = setup.now;
    const model = setup.agent.model;
    // Only the 'steps' schedule writes before a model call; 'boundaries'
    // gives the agent the model itself, with no layer around each chunk.
    const writeFirst: ChatModel =
      setup.persist === 'steps'
        ? {
            name: model.name,
            stream: (request, signal) => this.streamAfterWrite(model, request, signal),
          }
        : model;
    this.agent = new Agent({
      ...setup.agent,
      model: writeFirst,
      middlewares: [audit, ...(setup.agent.middlewares ?? [])],
      checkpoint,
      clock: () => now,
      ...(loaded === undefined
        ? { sessionId: setup.sessionId }
        : { state: adoptState(loaded.state) }),
    });
  }

  /**
   * Loads the session and checks `input` against it before anything runs:
   * an answer to a reply that is not parked (answered already, or another
   * one) is refused with `StaleReplyError`, one `mayAnswer` refuses with
   * `AnswerNotAllowedError`. A reply running in another process under a
   * lease that has not run out refuses the call (`SessionBusyError`); one
   * whose lease ran out (or that has none) was left by a stopped process
   * and is settled first (a call it had started is never run again).
   */
  static async open(setup: SessionCallSetup, input: ReplyInput | undefined): Promise<SessionCall> {
    const { loaded, collector, expired, leased } = await load(setup);
    const state = loaded?.state;
    let claimed: string | undefined;
    let given = input;
    if (input !== undefined && input !== null && looksLikeInputEvent(input)) {
      const event = parseInputEvent(input);
      claimed = event.replyId;
      given = adoptInput(event);
      if (!expired) {
        checkAnswer(setup.sessionId, state, event);
        if (state !== undefined && setup.keptRules === 'suggested') checkKeptRules(state, event);
        if (state !== undefined && !leased && setup.mayAnswer !== undefined) {
          await checkMayAnswer(setup.mayAnswer, setup.sessionId, setup.approver, state, event);
        }
        if (state !== undefined) collector.recordInput(state, event);
      }
    }
    // Running elsewhere: an answer to it was refused above as no longer parked.
    if (leased) throw new SessionBusyError(setup.sessionId, loaded?.leaseUntil);
    return new SessionCall(setup, loaded, collector, claimed, given);
  }

  /** Like `open` with no input, but `undefined` unless the parked reply has expired. */
  static async openExpired(setup: SessionCallSetup): Promise<SessionCall | undefined> {
    const { loaded, collector, expired, leased } = await load(setup);
    if (!expired || leased) return undefined;
    return new SessionCall(setup, loaded, collector, loaded?.state.reply?.replyId, undefined);
  }

  /** Runs the reply as `Agent.reply` does; held steps are written before it returns. */
  async reply(input: ReplyInput | undefined, options: ReplyOptions): Promise<Msg> {
    try {
      return await this.agent.reply(input, options);
    } finally {
      await this.writeHeld();
      this.lease.stop();
    }
  }

  /**
   * Runs the reply as `Agent.replyStream` does. When the caller leaves the
   * loop early, the agent closes the reply in memory; that is saved too,
   * unless the last step already parked or ended it.
   */
  async *replyStream(
    input: ReplyInput | undefined,
    options: ReplyOptions,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    let left = true;
    try {
      yield* this.agent.replyStream(input, options);
      left = false;
    } catch (error) {
      left = false;
      throw error;
    } finally {
      if (left && this.lastReason !== 'park' && this.lastReason !== 'reply_end') {
        this.held = true;
      }
      await this.writeHeld();
      this.lease.stop();
    }
  }

  /**
   * Writes held steps at the end of a call (normally there are none: a reply
   * ends with a park or an end). Best effort: a failure is logged, not
   * thrown over the call's own outcome.
   */
  private async writeHeld(): Promise<void> {
    if (!this.held || this.failure !== undefined) return;
    try {
      await this.write(this.agent.state, false);
    } catch (error) {
      this.setup.agent.logger?.warn('Could not save the last steps of a reply.', {
        sessionId: this.setup.sessionId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async *streamAfterWrite(
    model: ChatModel,
    request: ChatRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ChatChunk> {
    if (this.held) await this.write(this.agent.state, true);
    yield* model.stream(request, signal);
  }

  /** The agent's checkpoint hook: holds the in-between steps, writes the others. */
  private async checkpoint(state: AgentState, reason: CheckpointReason): Promise<void> {
    this.lastReason = reason;
    if (STRICT_REASONS.has(reason)) await this.write(state, false);
    else this.held = true;
  }

  /** A version-checked save with the records gathered since the last one. */
  private async write(state: AgentState, relaxed: boolean): Promise<void> {
    // A failed write stops the reply; one made while it winds down (a model
    // error, say) must not be tried against a version already lost.
    if (this.failure !== undefined) throw this.failure.error;
    this.held = false;
    const audit = this.collector.take(state);
    const leaseUntil = this.lease.beginSave(state);
    const options: SaveOptions = { relaxed };
    if (audit.length > 0) options.audit = audit;
    if (leaseUntil !== undefined) options.leaseUntil = leaseUntil;
    let version: number;
    try {
      version = await this.setup.store.save(this.setup.sessionId, state, this.version, options);
    } catch (error) {
      this.lease.endSave(undefined, false);
      const lostClaim =
        error instanceof StaleSessionError && this.claimed !== undefined && this.saves === 0;
      const failure = lostClaim
        ? new ConcurrentResumeError(this.setup.sessionId, this.claimed, { cause: error })
        : error;
      this.failure = { error: failure };
      throw failure;
    }
    this.version = version;
    this.saves += 1;
    this.lease.endSave(version, leaseUntil !== undefined);
  }
}

/**
 * Loads, settles a stopped reply, and says whether the parked reply expired.
 * A running reply whose lease has not run out is `leased`: its process is
 * alive (it keeps renewing), so it is left as it is.
 */
async function load(setup: SessionCallSetup): Promise<{
  loaded: StoredSession | undefined;
  collector: AuditCollector;
  expired: boolean;
  leased: boolean;
}> {
  const { store, sessionId } = setup;
  const loaded = await store.load(sessionId);
  if (loaded !== undefined && loaded.state.sessionId !== sessionId) {
    throw new InvalidStateError(
      `Stored state of session '${sessionId}' belongs to session '${loaded.state.sessionId}'.`,
      { sessionId },
    );
  }
  const collector = new AuditCollector({ sessionId, approver: setup.approver, clock: setup.clock });
  if (loaded === undefined) return { loaded, collector, expired: false, leased: false };
  collector.observe(loaded.state);
  const lease = loaded.leaseUntil === undefined ? Number.NaN : Date.parse(loaded.leaseUntil);
  if (loaded.state.reply?.status === 'running' && lease > setup.now.getTime()) {
    return { loaded, collector, expired: false, leased: true };
  }
  settleStoppedReply(loaded.state, setup.agent.toolkit ?? new Toolkit());
  return { loaded, collector, expired: isReplyExpired(loaded.state, setup.now), leased: false };
}

/**
 * Refuses an answer to a reply that is not the parked one of `state`: with
 * `ReplyExpiredError` when that reply's questions were closed by expiry (a
 * sweep got there first), else with `StaleReplyError`.
 */
function checkAnswer(sessionId: string, state: AgentState | undefined, event: InputEvent): void {
  if (event.type === 'USER_INTERRUPT') return;
  const reply = state?.reply ?? null;
  if (reply?.replyId !== event.replyId || reply.status !== 'parked') {
    const deadline = expiryOf(state, event.replyId);
    if (deadline !== undefined) throw new ReplyExpiredError(sessionId, event.replyId, deadline);
  }
  if (reply === null) throw new StaleReplyError(event.replyId, null);
  if (reply.replyId !== event.replyId) throw new StaleReplyError(event.replyId, reply.replyId);
  if (reply.status !== 'parked') {
    throw new StaleReplyError(
      event.replyId,
      null,
      `Reply '${event.replyId}' of session '${sessionId}' is no longer parked: it was already resumed.`,
    );
  }
}

/** The deadline at which reply `replyId` expired, if expiry closed any of its calls. */
function expiryOf(state: AgentState | undefined, replyId: string): string | undefined {
  const message = state?.context.findLast((candidate) => candidate.id === replyId);
  if (message === undefined || typeof message.content === 'string') return undefined;
  for (const block of message.content) {
    const expired = block.type === 'tool_result' ? block.metadata?.['expired'] : undefined;
    if (typeof expired === 'string') return expired;
  }
  return undefined;
}
