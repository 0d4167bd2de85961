import {
  ParleyError,
  Toolkit,
  externalExecutionResultEvent,
  userConfirmResultEvent,
  userInterruptEvent,
} from '@parley/core';
import type { AgentState, AnyTool, Msg, ReplyInput } from '@parley/core';
import { ForbiddenError, IdempotencyKeyError, SessionNotFoundError } from '../errors.js';
import {
  claimOn,
  idempotencyClaim,
  keepClaim,
  refuseOtherRequest,
} from '../idempotency/idempotency.js';
import { outcomeOf } from '../http/metrics.js';
import type { Principal } from '../auth/principal.js';
import { startReply } from '../replies/reply-task.js';
import type { RunningReply } from '../replies/reply-task.js';
import { indexWaiting, visibleSession } from '../http/server-context.js';
import type { ServerContext } from '../http/server-context.js';
import type { IdempotentRequest } from '../log/session-log.js';
import type { FrontendTools } from './frontend-tools.js';
import { openCallsOf } from './interrupts.js';
import { newUserMessages, snapshotMessages } from './messages.js';
import { answersOf } from './resume-answers.js';
import type { RunAnswers } from './resume-answers.js';
import type { RunOutline } from './run-outline.js';
import type { AguiInput } from './wire-types.js';

/** What the runner needs besides the server's context. */
export type AguiDeps = { context: ServerContext; frontend: FrontendTools };

/**
 * A run, ready to be shown: its warnings (known before anything ran), the
 * numbers of its Parley events in the session's log (`after`, exclusive,
 * to the number `lastSeq` resolves to), and its outline once it is over.
 */
export type AguiRun = {
  sessionId: string;
  warnings: string[];
  after: number;
  lastSeq: Promise<number>;
  outline: Promise<RunOutline>;
};

/** One step of a run: an answer to the parked reply, or new messages. */
type Step =
  | { kind: 'answer'; input: ReplyInput }
  | { kind: 'settle' }
  | { kind: 'messages'; messages: Msg[] };

/** The steps an input makes, in order: confirmations, results, or the stop; then new messages. */
function stepsOf(answers: RunAnswers, messages: Msg[]): Step[] {
  const steps: Step[] = [];
  const replyId = answers.replyId;
  if (replyId !== undefined) {
    if (answers.settleExpired) steps.push({ kind: 'settle' });
    if (answers.interrupt) steps.push({ kind: 'answer', input: userInterruptEvent({ replyId }) });
    if (answers.confirmations.length > 0) {
      const input = userConfirmResultEvent({ replyId, confirmResults: answers.confirmations });
      steps.push({ kind: 'answer', input });
    }
    if (answers.results.length > 0) {
      const input = externalExecutionResultEvent({ replyId, executionResults: answers.results });
      steps.push({ kind: 'answer', input });
    }
  }
  if (messages.length > 0) steps.push({ kind: 'messages', messages });
  return steps;
}

/** The toolkit a run's replies see: the server's tools and the client's. */
function toolkitOf(deps: AguiDeps, sessionId: string, tools: readonly AnyTool[]): Toolkit {
  return new Toolkit([...(deps.frontend.baseOf(sessionId).toolkit?.list() ?? []), ...tools]);
}

/** The run's outline from the stored state once its replies are over. */
async function outlineOf(
  deps: AguiDeps,
  sessionId: string,
  toolkit: Toolkit,
  clientTools: ReadonlySet<string>,
  warnings: string[],
  notes: string[],
  failure: RunOutline['failure'],
): Promise<RunOutline> {
  const state = (await deps.context.store.load(sessionId))?.state;
  const open = openCallsOf(state, toolkit, clientTools);
  const parked = open.interrupts.length > 0 || open.pendingToolCallIds.length > 0;
  return {
    warnings,
    notes,
    interrupts: open.interrupts,
    pendingToolCallIds: open.pendingToolCallIds,
    messages: parked && state !== undefined ? snapshotMessages(state.context) : null,
    failure,
  };
}

/** Why a reply that failed after the stream opened failed, for `RUN_ERROR`. */
function failureOf(error: unknown): NonNullable<RunOutline['failure']> {
  if (error instanceof ParleyError) return { message: error.message, code: error.code };
  return { message: 'The run failed.', code: 'internal' };
}

/**
 * Starts an AG-UI run on the session `input.threadId` (created, owned by
 * the caller, on first use): the answers in `resume[]` and the client's
 * tool messages, then any new user messages, each as a reply of the
 * session, one after the other. Everything is checked before the first
 * reply starts, and a refusal throws (the route answers with its status,
 * nothing stored). The replies go on if the client goes away. The same
 * `(threadId, runId)` again gives the first run back (`replay`), or 409
 * while it still runs; with another body, 422.
 */
export async function startAguiRun(
  deps: AguiDeps,
  principal: Principal,
  input: AguiInput,
): Promise<AguiRun | { replay: IdempotentRequest }> {
  const { context, frontend } = deps;
  const sessionId = input.threadId;
  const known = context.records.get(sessionId) ?? (await context.log.session(sessionId));
  if (known !== undefined) await visibleSession(context, principal, sessionId);
  // A stored session the server never recorded belongs to no one here: it is not taken over.
  else if ((await context.store.load(sessionId)) !== undefined) {
    throw new SessionNotFoundError(sessionId);
  }
  const owner = known === undefined || known.owner === principal.id;

  const claim = idempotencyClaim(
    principal.id,
    `agui ${sessionId} ${input.runId}`,
    'agui',
    input,
    context,
  );
  if (claim === undefined) throw new Error('unreachable: a run always has a key');
  const earlier = await claimOn(context.log, claim, context);
  if (earlier !== undefined) {
    refuseOtherRequest(earlier, claim.requestHash);
    if (earlier.after === null || earlier.lastSeq === null || earlier.response === null) {
      throw new IdempotencyKeyError(earlier.key, true, earlier.heldUntil);
    }
    return { replay: earlier };
  }
  // Renewed until the run is settled or refused: a claim not renewed was abandoned.
  const stopKeeping = keepClaim(context.log, claim, context);
  const release = (): Promise<void> => {
    stopKeeping();
    return context.log.releaseIdempotency(claim);
  };

  let steps: Step[];
  let warnings: string[];
  let toolkit: Toolkit;
  let clientTools: ReadonlySet<string>;
  let tools: AnyTool[];
  try {
    const state: AgentState | undefined = (await context.store.load(sessionId))?.state;
    tools = frontend.toolsFor(sessionId, input.tools);
    toolkit = toolkitOf(deps, sessionId, tools);
    clientTools = new Set(tools.map((item) => item.name));
    const answers = answersOf({
      state,
      toolkit,
      clientTools,
      resume: input.resume ?? [],
      messages: input.messages,
      now: context.clock(),
    });
    const ids = new Set(state?.context.map((message) => message.id) ?? []);
    const fresh = newUserMessages(input.messages, ids);
    if (fresh.length > 0 && !owner) {
      throw new ForbiddenError(
        'Only the owner of a session may send it messages; approvers answer.',
      );
    }
    steps = stepsOf(answers, fresh);
    warnings = answers.warnings;
    if (known === undefined) {
      const record = {
        id: sessionId,
        owner: principal.id,
        createdAt: context.clock().toISOString(),
      };
      await context.log.createSession(record).catch(async (error: unknown) => {
        // Two first runs of one thread at once: the first recorded it; the
        // same caller goes on (and meets the running run), anyone else is 404.
        const now = await context.log.session(sessionId);
        if (now === undefined) throw error;
        if (now.owner !== principal.id) throw new SessionNotFoundError(sessionId);
      });
    }
  } catch (error) {
    await release();
    throw error;
  }

  let withdraw: () => void;
  try {
    withdraw = frontend.offer(sessionId, tools);
  } catch (error) {
    await release();
    throw error;
  }
  const first = steps[0];
  let running: RunningReply | undefined;
  if (first !== undefined) {
    const answering = first.kind !== 'messages';
    try {
      running = await startStep(deps, sessionId, first, principal);
      if (answering) context.metrics.answers.inc({ outcome: 'accepted' });
    } catch (error) {
      if (answering) context.metrics.answers.inc({ outcome: outcomeOf(error) });
      withdraw();
      await release();
      throw error;
    }
  }
  const start = running?.after ?? (await context.log.lastSeq(sessionId));
  const after =
    running === undefined || running.after === Number.MAX_SAFE_INTEGER ? start : running.after;
  const task = (async (): Promise<{ lastSeq: number; outline: RunOutline }> => {
    const notes: string[] = [];
    let lastSeq = after;
    let failure: RunOutline['failure'] = null;
    try {
      let current = running;
      for (let index = 0; ; index += 1) {
        if (current !== undefined) {
          const outcome = await current.done;
          lastSeq = Math.max(lastSeq, outcome.lastSeq);
          await indexWaiting(context, sessionId).catch(() => undefined);
          if (outcome.error !== undefined) {
            failure = failureOf(outcome.error);
            break;
          }
        }
        const next = steps[index + 1];
        if (next === undefined) break;
        const parked = (await context.store.load(sessionId))?.state.reply?.status === 'parked';
        if (next.kind === 'messages' && parked) {
          notes.push('The new messages were not sent: the reply still waits for answers.');
          break;
        }
        current = await startStep(deps, sessionId, next, principal);
        context.running.add(current);
        const added = current;
        void added.done.finally(() => context.running.delete(added));
      }
    } catch (error) {
      failure = failureOf(error);
    } finally {
      withdraw();
    }
    // The run always ends, so its stream does too: an unreadable state is a failure of the run.
    const outline = await outlineOf(
      deps,
      sessionId,
      toolkit,
      clientTools,
      warnings,
      notes,
      failure,
    ).catch((error: unknown): RunOutline => ({
      warnings,
      notes,
      interrupts: [],
      pendingToolCallIds: [],
      messages: null,
      failure: failureOf(error),
    }));
    stopKeeping();
    await context.log
      .settleIdempotency({ ...claim, after, lastSeq, response: JSON.stringify(outline) })
      .catch(() => undefined);
    return { lastSeq, outline };
  })();
  if (running !== undefined) {
    context.running.add(running);
    const added = running;
    void task.finally(() => context.running.delete(added));
  }
  return {
    sessionId,
    warnings,
    after,
    lastSeq: task.then((done) => done.lastSeq),
    outline: task.then((done) => done.outline),
  };
}

/** Starts one step as a reply of the session; resolves once its first event is out. */
function startStep(
  deps: AguiDeps,
  sessionId: string,
  step: Step,
  principal: Principal,
): Promise<RunningReply> {
  const input: ReplyInput | undefined =
    step.kind === 'answer' ? step.input : step.kind === 'messages' ? step.messages : undefined;
  const { sessions, feed } = deps.context;
  return startReply(sessions, feed, sessionId, input, principal.id);
}
