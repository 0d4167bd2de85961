import { Agent, isReplyExpired } from '../../agent/index.js';
import type { AgentOptions, Checkpoint, CheckpointReason, Middleware } from '../../agent/index.js';
import { settleStoppedReply } from '../../agent/recovery.js';
import {
  ConcurrentResumeError,
  InvalidStateError,
  StaleReplyError,
  StaleSessionError,
} from '../../errors/index.js';
import type { InputEvent } from '../../event/index.js';
import { looksLikeInputEvent, parseInputEvent } from '../../event/index.js';
import type { AgentState } from '../../state/index.js';
import { Toolkit } from '../../tool/index.js';
import type { SessionStore, StoredSession } from '../session-store.js';
import { AuditCollector } from './audit-collector.js';

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
};

/**
 * Saves a reply cannot go on without a power loss undoing them (before a
 * tool runs, at a park, at the end); the others are relaxed (see `SaveOptions`).
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
 */
export class SessionCall {
  readonly agent: Agent;
  private readonly setup: SessionCallSetup;
  private readonly collector: AuditCollector;
  /** The reply this call answers, when it answers one. */
  private readonly claimed: string | undefined;
  private version: number;
  private saves = 0;
  private lastReason: CheckpointReason | undefined;

  private constructor(
    setup: SessionCallSetup,
    loaded: StoredSession | undefined,
    collector: AuditCollector,
    claimed: string | undefined,
  ) {
    this.setup = setup;
    this.collector = collector;
    this.claimed = claimed;
    this.version = loaded?.version ?? 0;
    const audit: Middleware = {
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
    };
    const checkpoint: Checkpoint = (state, reason) => this.save(state, reason);
    const now = setup.now;
    this.agent = new Agent({
      ...setup.agent,
      middlewares: [audit, ...(setup.agent.middlewares ?? [])],
      checkpoint,
      clock: () => now,
      ...(loaded === undefined ? { sessionId: setup.sessionId } : { state: loaded.state }),
    });
  }

  /**
   * Loads the session and checks `input` against it before anything runs:
   * an answer to a reply that is not parked (answered already, or another
   * one) is refused with `StaleReplyError`. A reply a stopped process left
   * running is settled first (a call it had started is never run again).
   */
  static async open(setup: SessionCallSetup, input: unknown): Promise<SessionCall> {
    const { loaded, collector, expired } = await load(setup);
    const state = loaded?.state;
    let claimed: string | undefined;
    if (input !== undefined && input !== null && looksLikeInputEvent(input)) {
      const event = parseInputEvent(input);
      claimed = event.replyId;
      if (!expired) {
        checkAnswer(setup.sessionId, state, event);
        if (state !== undefined) collector.recordInput(state, event);
      }
    }
    return new SessionCall(setup, loaded, collector, claimed);
  }

  /** Like `open` with no input, but `undefined` unless the parked reply has expired. */
  static async openExpired(setup: SessionCallSetup): Promise<SessionCall | undefined> {
    const { loaded, collector, expired } = await load(setup);
    if (!expired) return undefined;
    return new SessionCall(setup, loaded, collector, loaded?.state.reply?.replyId);
  }

  /**
   * After the caller left a stream early: the agent closed the reply in
   * memory; persist that unless the last save already ended or parked it.
   * Best effort: a failure is logged, not thrown at the caller's `break`.
   */
  async persistAfterLeaving(): Promise<void> {
    if (this.lastReason === 'park' || this.lastReason === 'reply_end') return;
    try {
      await this.save(this.agent.state, 'reply_end');
    } catch (error) {
      this.setup.agent.logger?.warn('Could not persist a reply left early.', {
        sessionId: this.setup.sessionId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** The checkpoint: a version-checked save with the records gathered since the last one. */
  private async save(state: AgentState, reason: CheckpointReason): Promise<void> {
    const audit = this.collector.take(state);
    const relaxed = !STRICT_REASONS.has(reason);
    let version: number;
    try {
      version = await this.setup.store.save(
        this.setup.sessionId,
        state,
        this.version,
        audit.length > 0 ? { audit, relaxed } : { relaxed },
      );
    } catch (error) {
      if (error instanceof StaleSessionError && this.claimed !== undefined && this.saves === 0) {
        throw new ConcurrentResumeError(this.setup.sessionId, this.claimed, { cause: error });
      }
      throw error;
    }
    this.version = version;
    this.saves += 1;
    this.lastReason = reason;
  }
}

/** Loads, settles a stopped reply, and says whether the parked reply expired. */
async function load(setup: SessionCallSetup): Promise<{
  loaded: StoredSession | undefined;
  collector: AuditCollector;
  expired: boolean;
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
  if (loaded === undefined) return { loaded, collector, expired: false };
  collector.observe(loaded.state);
  settleStoppedReply(loaded.state, setup.agent.toolkit ?? new Toolkit());
  return { loaded, collector, expired: isReplyExpired(loaded.state, setup.now) };
}

/** Refuses an answer to a reply that is not the parked one of `state`. */
function checkAnswer(sessionId: string, state: AgentState | undefined, event: InputEvent): void {
  if (event.type === 'USER_INTERRUPT') return;
  const reply = state?.reply ?? null;
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
