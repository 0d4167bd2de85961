import type { FinishedReason, Msg } from '../message/index.js';
import { PermissionEngine, createPermissionContext } from '../permission/index.js';
import { Toolkit } from '../tool/index.js';
import type { Logger } from '../tool/index.js';
import type { AgentEvent } from '../event/index.js';
import type { AgentState } from '../state/index.js';
import { AGENT_STATE_VERSION, parseAgentState } from '../state/index.js';
import { AgentBusyError, ModelError } from '../errors/index.js';
import { newId, nowIso } from '../util/ids.js';
import { takeAdopted } from './adopt.js';
import { actOnTurn, interruptOpenCalls } from './batching.js';
import type { ReplyInput, ReplyPlan } from './input.js';
import { planReply } from './input.js';
import type { AgentOptions, ReplyOptions } from './options.js';
import { reason } from './reasoning.js';
import { settleStoppedReply } from './recovery.js';
import { closeExpiredCalls, expirySettings, planExpiry, withParkDeadline } from './expiry.js';
import type { ExpirePlan, ExpirySettings } from './expiry.js';
import { ReplyRun } from './reply-run.js';
import { RunSignal } from './run-signal.js';
import type { RunDependencies } from './reply-run.js';
import { applyConfirm, applyExternal } from './resume.js';
import { agentTexts } from './texts.js';
import { compose, hooksOf, needsCopies } from './middleware.js';
import type { Middleware, ModelCallContext } from './middleware.js';
import type { ChatChunk } from '../model/index.js';
import { ReplyMetrics, ReplyTrace, traceSettings } from '../telemetry/index.js';
import { answerOutcomes, resumeInfo } from './trace-plan.js';

/** A thrown value as an Error (models may throw anything). */
function asError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new ModelError(
    `The model failed: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
}

/**
 * The model call wrapped in the `onModelCall` middlewares. The request shares
 * its blocks with the context, so middlewares get a copy of it, as they get
 * copies of the call and input in the other hooks.
 */
function withRequestCopy(
  hooks: NonNullable<Middleware['onModelCall']>[],
  call: (context: ModelCallContext) => AsyncIterable<ChatChunk>,
): (context: ModelCallContext) => AsyncIterable<ChatChunk> {
  if (hooks.length === 0) return call;
  const composed = compose(hooks, call);
  return (context) => composed({ ...context, request: structuredClone(context.request) });
}

const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** How a run ended; a parked run still owes its REQUIRE_* events. */
type RunResult = { message: Msg; error?: Error; parkEvents?: AgentEvent[] };

function freshState(options: AgentOptions): AgentState {
  const rules = options.permission?.rules ?? [];
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId: options.sessionId ?? newId(),
    context: [],
    permission: createPermissionContext({
      mode: options.permission?.mode ?? 'default',
      workingDirectories: options.permission?.workingDirectories ?? [],
      allowRules: rules.filter((rule) => rule.behavior === 'allow'),
      denyRules: rules.filter((rule) => rule.behavior === 'deny'),
      askRules: rules.filter((rule) => rule.behavior === 'ask'),
    }),
    reply: null,
  };
}

/**
 * An agent: a model, tools, and a permission engine, running the
 * reasoning-acting loop with human-in-the-loop pauses. All it knows lives in
 * `agent.state` (plain JSON); a new `Agent` given a JSON round trip of it
 * goes on exactly where this one stopped.
 *
 * @example
 * const agent = new Agent({ name: 'assistant', model, toolkit });
 * for await (const event of agent.replyStream('Write a note')) {
 *   if (event.type === 'REQUIRE_USER_CONFIRM') { ... }
 * }
 */
export class Agent {
  readonly name: string;
  private readonly deps: RunDependencies;
  private readonly engine: PermissionEngine;
  private readonly expiry: ExpirySettings;
  private current: AgentState;
  private running = false;
  /** The spans of the run in progress, if any. */
  private trace: ReplyTrace | undefined;

  constructor(options: AgentOptions) {
    this.name = options.name ?? 'assistant';
    const given = options.state;
    this.current =
      given === undefined
        ? freshState(options)
        : takeAdopted(given)
          ? given
          : parseAgentState(structuredClone(given));
    this.engine = new PermissionEngine(this.current.permission);
    const middlewares = options.middlewares ?? [];
    this.current.permission = this.engine.context;
    this.expiry = expirySettings(options);
    this.deps = {
      agentName: this.name,
      systemPrompt: options.systemPrompt ?? '',
      model: options.model,
      toolkit: options.toolkit ?? new Toolkit(),
      engine: this.engine,
      callModel: withRequestCopy(hooksOf(middlewares, 'onModelCall'), (context: ModelCallContext) =>
        options.model.stream(context.request, context.signal),
      ),
      permissionHooks: hooksOf(middlewares, 'onCheckPermission'),
      actingHooks: hooksOf(middlewares, 'onActing'),
      copyFor: {
        permission: needsCopies(middlewares, 'onCheckPermission'),
        acting: needsCopies(middlewares, 'onActing'),
      },
      maxIters: options.maxIters ?? 50,
      logger: options.logger ?? silentLogger,
      checkpoint: withParkDeadline(options.checkpoint, this.expiry),
      trace: traceSettings(options.telemetry),
      metrics: new ReplyMetrics(options.telemetry?.meter),
    };
  }

  /** The live state: JSON-serializable and versioned. Treat it as read-only. */
  get state(): AgentState {
    return this.current;
  }

  /**
   * Runs a reply (or resumes a parked one) and resolves to its final message.
   * While parked it resolves to the waiting notice (`finishedReason: null`).
   * A model failure rejects, after the reply was closed with `error`.
   */
  async reply(input?: ReplyInput, options: ReplyOptions = {}): Promise<Msg> {
    const run = this.run(input, options, false);
    let step = await run.next();
    while (step.done !== true) step = await run.next();
    if (step.value.error !== undefined) throw step.value.error;
    return step.value.message;
  }

  /**
   * Runs a reply (or resumes a parked one) as a stream of events. While
   * parked the stream ends after the REQUIRE_* event(s), with no REPLY_END.
   * A model failure ends it with REPLY_END (error). Leaving the loop early
   * cancels the reply.
   */
  replyStream(input?: ReplyInput, options: ReplyOptions = {}): AsyncIterable<AgentEvent> {
    return this.run(input, options, true);
  }

  /** One run; `leavable`: a stream, whose consumer may leave it early (see `RunSignal`). */
  private async *run(
    input: unknown,
    options: ReplyOptions,
    leavable: boolean,
  ): AsyncGenerator<AgentEvent, RunResult> {
    if (this.running) throw new AgentBusyError();
    settleStoppedReply(this.current, this.deps.toolkit);
    const expiry = planExpiry(this.current, this.deps.toolkit, input, this.expiry);
    const plan = expiry ?? planReply(this.current, this.deps.toolkit, input);
    this.running = true;
    const stop = new RunSignal(options.signal, leavable);
    this.trace = this.startTrace(expiry ?? plan, options.approver);
    let settled = false;
    let failure: unknown;
    let result: RunResult;
    try {
      const opened = yield* this.open(plan, stop.signal);
      result = opened instanceof ReplyRun ? yield* this.loop(opened) : opened;
      settled = true;
    } catch (error) {
      settled = true;
      failure = error;
      throw error;
    } finally {
      stop.release();
      if (!settled) this.cancelSilently(stop);
      this.running = false;
      this.trace?.end(failure);
      this.trace = undefined;
    }
    // Parked and persisted: the agent is free before the caller hears why,
    // so it may answer from inside its loop over the stream.
    // (Arrays are yielded item by item: `yield*` would await each one.)
    for (const event of result.parkEvents ?? []) yield event;
    if (expiry?.refusal !== undefined) throw expiry.refusal;
    return result;
  }

  /**
   * The spans of a run that opens or goes on with a reply (none for an idle
   * interrupt); a resume's metrics are recorded here too.
   */
  private startTrace(
    plan: ReplyPlan | ExpirePlan,
    approver: string | undefined,
  ): ReplyTrace | undefined {
    if (plan.kind === 'idle_interrupt') return undefined;
    const reply = this.current.reply;
    // `parkedAt` is stamped by the system clock, so the wait is measured by it too.
    const resume = resumeInfo(this.current, plan, approver, new Date());
    if (resume !== undefined) {
      this.deps.metrics.resumed(this.name, resume, answerOutcomes(this.current, plan));
    }
    return new ReplyTrace(
      this.deps.trace,
      {
        agentName: this.name,
        sessionId: this.current.sessionId,
        ...(plan.kind !== 'new' && reply !== null ? { replyId: reply.replyId } : {}),
      },
      resume,
    );
  }

  /**
   * Starts or resumes the reply as `plan` says. Returns the run to go on
   * with in `loop`, or how the run ended when there is nothing to loop on.
   */
  private async *open(
    plan: ReplyPlan | ExpirePlan,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, ReplyRun | RunResult> {
    switch (plan.kind) {
      case 'idle_interrupt':
        return { message: this.notice(newId(), agentTexts.interrupted, 'interrupted') };
      case 'new': {
        if (this.current.reply !== null) this.closeStoppedReply();
        this.current.context.push(...plan.messages);
        const replyId = newId();
        this.current.context.push({
          id: replyId,
          name: this.name,
          role: 'assistant',
          content: [],
          createdAt: nowIso(),
        });
        this.current.reply = {
          replyId,
          status: 'running',
          iterations: 0,
          turnStart: 0,
          executing: [],
        };
        const run = new ReplyRun(this.deps, this.current, signal, this.trace);
        yield run.event('REPLY_START', {
          sessionId: this.current.sessionId,
          name: this.name,
          role: 'assistant',
        });
        await run.checkpoint('reply_start');
        return run;
      }
      case 'continue':
        return this.startRun(signal);
      case 'interrupt': {
        const run = this.startRun(signal);
        yield* interruptOpenCalls(run, agentTexts.toolInterrupted);
        return yield* this.finish(run, 'interrupted');
      }
      case 'confirm': {
        const run = this.startRun(signal);
        const events = applyConfirm(run, this.engine, plan.event);
        await run.checkpoint('resume');
        for (const event of events) yield event;
        return run;
      }
      case 'external': {
        const run = this.startRun(signal);
        const events = applyExternal(run, plan.event);
        await run.checkpoint('resume');
        for (const event of events) yield event;
        return run;
      }
      case 'expire': {
        const run = this.startRun(signal);
        const events = closeExpiredCalls(run, plan.onExpire);
        if (plan.then !== undefined) return yield* this.open(plan.then, signal);
        await run.checkpoint('expire');
        for (const event of events) yield event;
        return plan.onExpire === 'deny' ? run : yield* this.abort(run);
      }
    }
  }

  private startRun(signal: AbortSignal): ReplyRun {
    const run = new ReplyRun(this.deps, this.current, signal, this.trace);
    run.reply.status = 'running';
    delete run.reply.parkedAt;
    delete run.reply.traceParent;
    return run;
  }

  private async *loop(run: ReplyRun): AsyncGenerator<AgentEvent, RunResult> {
    for (;;) {
      const { outcome, parkEvents } = yield* actOnTurn(run);
      if (outcome === 'aborted' || run.signal.aborted) return yield* this.abort(run);
      if (outcome === 'parked') {
        return { message: this.notice(run.replyId, agentTexts.waiting, null), parkEvents };
      }
      if (run.reply.iterations >= this.deps.maxIters) return yield* this.exceed(run);
      run.reply.iterations += 1;
      run.reply.turnStart = run.message.content.length;
      let calls;
      try {
        calls = yield* reason(run);
      } catch (error) {
        if (run.signal.aborted) return yield* this.abort(run);
        return yield* this.finish(run, 'error', asError(error));
      }
      if (run.persists) await run.checkpoint('after_model');
      if (calls.length === 0) return yield* this.finish(run, 'completed');
    }
  }

  private async *exceed(run: ReplyRun): AsyncGenerator<AgentEvent, RunResult> {
    yield run.event('EXCEED_MAX_ITERS', { name: this.name });
    const blockId = newId();
    run.append({ type: 'text', text: agentTexts.exceeded, id: blockId });
    yield run.event('TEXT_BLOCK_START', { blockId });
    yield run.event('TEXT_BLOCK_DELTA', { blockId, delta: agentTexts.exceeded });
    yield run.event('TEXT_BLOCK_END', { blockId });
    return yield* this.finish(run, 'exceed_max_iters');
  }

  private async *abort(run: ReplyRun): AsyncGenerator<AgentEvent, RunResult> {
    yield* interruptOpenCalls(run, agentTexts.toolInterrupted);
    return yield* this.finish(run, 'interrupted');
  }

  /** Ends the reply: persist, then REPLY_END. */
  private async *finish(
    run: ReplyRun,
    finishedReason: FinishedReason,
    error?: Error,
  ): AsyncGenerator<AgentEvent, RunResult> {
    run.message.finishedReason = finishedReason;
    this.current.reply = null;
    await run.checkpoint('reply_end');
    const described =
      error === undefined ? undefined : { type: error.name, message: error.message };
    yield run.event('REPLY_END', {
      sessionId: this.current.sessionId,
      finishedReason,
      ...(described === undefined ? {} : { error: described }),
    });
    if (finishedReason === 'interrupted') {
      return { message: this.notice(run.replyId, agentTexts.interrupted, 'interrupted') };
    }
    const message: Msg = { ...run.message, content: run.message.content.slice() };
    return error === undefined ? { message } : { message, error };
  }

  /** A reply message that is not stored: the waiting and interruption notices. */
  private notice(id: string, text: string, finishedReason: FinishedReason | null): Msg {
    return {
      id,
      name: this.name,
      role: 'assistant',
      content: text,
      finishedReason,
      createdAt: nowIso(),
    };
  }

  /** The consumer left `replyStream` early: stop tools and close the reply without events. */
  private cancelSilently(stop: RunSignal): void {
    stop.cancel();
    if (this.current.reply?.status !== 'running') return;
    this.closeStoppedReply();
  }

  /** Closes a reply that will not go on, without events: open calls interrupted. */
  private closeStoppedReply(): void {
    const run = new ReplyRun(this.deps, this.current, AbortSignal.abort());
    for (const _ of interruptOpenCalls(run, agentTexts.toolInterrupted)) {
      // events of a reply nobody listens to are dropped
    }
    run.message.finishedReason = 'interrupted';
    this.current.reply = null;
  }
}
