import { createRoute, z } from '@hono/zod-openapi';
import type { Msg } from '@parley/core';
import type { Context } from 'hono';
import {
  ForbiddenError,
  IdempotencyKeyError,
  IdempotentRequestInterruptedError,
  InvalidRequestError,
} from '../../errors.js';
import { followEventBatches } from '../../events/follow-events.js';
import {
  claimReply,
  idempotencyClaim,
  idempotentOutcome,
  keepClaim,
  lastStoredOfReply,
  recordStart,
  refuseOtherRequest,
  settleInterrupted,
} from '../../idempotency/idempotency.js';
import { interruptedNote, interruptedOutcome } from '../../replies/interrupted-outcome.js';
import { isApprover } from '../../auth/principal.js';
import { outcomeOf } from '../metrics.js';
import { problemFor, problemOf, problemResponse } from '../problem.js';
import { parseReplyInput } from '../../replies/reply-input.js';
import { startReply } from '../../replies/reply-task.js';
import { sseResponse } from '../../node/sse-response.js';
import type { RunningReply } from '../../replies/reply-task.js';
import type { ServerApp, ServerContext, ServerEnv } from '../server-context.js';
import { indexWaiting, visibleSession } from '../server-context.js';
import type { IdempotentRequest } from '../../log/session-log.js';
import {
  approvalsSchema,
  eventsHeadersSchema,
  eventsQuerySchema,
  messageResultSchema,
  problemResponses,
  problemSchema,
  replyBodySchema,
  idempotencyHeadersSchema,
  sessionParamsSchema,
} from '../schemas.js';

const problem = (description: string) =>
  ({ description, content: { 'application/problem+json': { schema: problemSchema } } }) as const;

const eventStream = {
  description: 'Server-sent events: one AgentEvent per frame, `id` its number in the session',
  content: { 'text/event-stream': { schema: z.string() } },
} as const;

const cancelledSchema = z.object({ cancelled: z.boolean() });

const postReply = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/replies',
  summary: 'Send a message, or answer the parked reply',
  request: {
    params: sessionParamsSchema,
    headers: idempotencyHeadersSchema,
    body: { required: true, content: { 'application/json': { schema: replyBodySchema } } },
  },
  responses: {
    200: {
      description:
        'The final message or the waiting notice; with Accept: text/event-stream, the events',
      content: {
        'application/json': { schema: messageResultSchema },
        'text/event-stream': { schema: z.string() },
      },
    },
    ...problemResponses,
    403: problem('mayAnswer refused the answer, or an approver sent a message'),
    409: problem(
      'Busy session, stale or already answered reply, lost race, or the keyed request was interrupted',
    ),
    410: problem('The parked reply expired'),
    413: problem('Body over the limit'),
  },
});

const cancelReply = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/cancel',
  summary: 'Stop the running reply',
  request: { params: sessionParamsSchema, headers: idempotencyHeadersSchema },
  responses: {
    200: {
      description: 'Stopped (and saved), or nothing was running here',
      content: { 'application/json': { schema: cancelledSchema } },
    },
    ...problemResponses,
    403: problem('Only the owner may cancel'),
  },
});

const getEvents = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/events',
  summary: 'Every stored event after Last-Event-ID (or ?after=), then live ones',
  request: { params: sessionParamsSchema, query: eventsQuerySchema, headers: eventsHeadersSchema },
  responses: { 200: eventStream, ...problemResponses },
});

const listApprovals = createRoute({
  method: 'get',
  path: '/v1/approvals',
  summary: 'Every waiting call, across sessions, that the caller may answer',
  responses: {
    200: {
      description: 'The waiting calls',
      content: { 'application/json': { schema: approvalsSchema } },
    },
    401: problemResponses[401],
  },
});

/** The number in `Last-Event-ID` or `?after=` (0 without either); anything but digits is refused. */
function afterOf(header: string | undefined, query: string | undefined): number {
  const given = header ?? query;
  if (given === undefined) return 0;
  const name = header === undefined ? 'after' : 'Last-Event-ID';
  if (!/^\d{1,15}$/.test(given.trim())) {
    throw new InvalidRequestError(
      name,
      `${name} must be an event number, not ${JSON.stringify(given)}.`,
    );
  }
  return Number(given.trim());
}

/** The reply's final message; a parked reply's message so far, marked as waiting. */
async function finalMessage(context: ServerContext, sessionId: string): Promise<Msg | undefined> {
  const state = (await context.store.load(sessionId))?.state;
  const last = state?.context.at(-1);
  if (last === undefined) return undefined;
  return state?.reply?.status === 'parked' ? { ...last, finishedReason: null } : last;
}

/**
 * Why a reply's JSON response is an error: the runner threw after the
 * start, or the reply left no message; `undefined` when it did not fail.
 */
function replyFailure(error: unknown, message: Msg | undefined): Error | undefined {
  if (error !== undefined) {
    return error instanceof Error ? error : new Error('The reply failed.', { cause: error });
  }
  if (message === undefined) return new InvalidRequestError('input', 'The reply left no message.');
  return undefined;
}

/**
 * The first outcome of a request sent again with its `Idempotency-Key`: the
 * same events, or the same JSON (a failed request's error response too).
 * Another request under the key is 422; a first request still running is
 * 409, one interrupted (`settleInterrupted`) too, unless the events are
 * asked for.
 */
async function replayed(
  c: Context<ServerEnv>,
  context: ServerContext,
  sessionId: string,
  requestHash: string,
  earlier: IdempotentRequest,
): Promise<Response> {
  refuseOtherRequest(earlier, requestHash);
  const { after, lastSeq, response } = earlier;
  if (after === null || lastSeq === null) {
    throw new IdempotencyKeyError(earlier.key, true, earlier.heldUntil);
  }
  const outcome = () => interruptedOutcome(context.log, sessionId, after, lastSeq);
  if (wantsEvents(c)) {
    return sseResponse(
      c,
      context,
      (signal) =>
        followEventBatches(
          context.log,
          context.feed,
          sessionId,
          after,
          signal,
          Promise.resolve(lastSeq),
        ),
      earlier.interrupted
        ? { closing: async () => interruptedNote(sessionId, await outcome()) }
        : {},
    );
  }
  if (earlier.interrupted) {
    throw new IdempotentRequestInterruptedError(earlier.key, after, await outcome());
  }
  if (response === null) {
    // Settled without a response: a failure, stored by a build that kept no error response.
    const problem = problemOf(500, 'internal', 'The server failed to handle the request.');
    return problemResponse({ problem, headers: {} });
  }
  const type = earlier.status === 200 ? 'application/json' : 'application/problem+json';
  return new Response(response, { status: earlier.status, headers: { 'Content-Type': type } });
}

function wantsEvents(c: Context<ServerEnv>): boolean {
  return c.req.header('accept')?.includes('text/event-stream') ?? false;
}

/**
 * A retry that took over `claim` from a process that stopped after the
 * reply had started: the reply is not run again. The claim is settled as
 * interrupted, its events being the reply's as far as they were stored, or
 * up to its end when it still runs in this process; with `text/event-stream`
 * the retry gets those events, else 409 `idempotent_request_interrupted`.
 */
async function interrupted(
  c: Context<ServerEnv>,
  context: ServerContext,
  sessionId: string,
  claim: IdempotentRequest & { after: number },
): Promise<Response> {
  const { after } = claim;
  const here = [...context.running].find(
    (task) => task.sessionId === sessionId && task.after === after,
  );
  const end =
    here === undefined
      ? lastStoredOfReply(context.log, sessionId, after)
      : here.done.then(({ lastSeq }) => lastSeq);
  const settled = settleInterrupted(context.log, claim, context, end);
  const outcome = async () => interruptedOutcome(context.log, sessionId, after, await end);
  if (!wantsEvents(c)) {
    await settled;
    throw new IdempotentRequestInterruptedError(claim.key, after, await outcome());
  }
  void settled.catch((error: unknown) => {
    context.logger.error('Could not settle an interrupted idempotent request.', {
      sessionId,
      error: String(error),
    });
  });
  return sseResponse(
    c,
    context,
    (signal) => followEventBatches(context.log, context.feed, sessionId, after, signal, end),
    { closing: async () => interruptedNote(sessionId, await outcome()) },
  );
}

/** Registers the routes that run replies, answer them, stop them and stream their events. */
export function registerReplyRoutes(app: ServerApp, context: ServerContext): void {
  app.openapi(postReply, async (c) => {
    const { id } = c.req.valid('param');
    const principal = c.get('principal');
    const record = await visibleSession(context, principal, id);
    const body = c.req.valid('json');
    const parsed = parseReplyInput(body.input);
    if (parsed.kind === 'message' && record.owner !== principal.id) {
      throw new ForbiddenError(
        'Only the owner of a session may send it messages; approvers answer.',
      );
    }
    const key = c.req.valid('header')['idempotency-key'];
    const claim = idempotencyClaim(principal.id, key, id, body, context);
    if (claim !== undefined) {
      const claimed = await claimReply(context.log, id, claim, context);
      if (claimed.kind === 'interrupted') return interrupted(c, context, id, claimed.claim);
      if (claimed.kind === 'earlier') {
        return replayed(c, context, id, claim.requestHash, claimed.earlier);
      }
    }
    // Renewed while the reply runs: a claim that stops being renewed was abandoned.
    const stopKeeping =
      claim === undefined ? () => undefined : keepClaim(context.log, claim, context);
    let running: RunningReply;
    // The round trip as a client sees it: from the POST to the reply's first event.
    const stopTimer = context.metrics.roundTrip.startTimer({ kind: parsed.kind });
    let recorded: number | undefined;
    try {
      // Before the reply starts: a retry taking the claim over then tells from the log whether it did.
      if (claim !== undefined) recorded = await recordStart(context.log, claim, id);
      running = await startReply(context.sessions, context.feed, id, parsed.input, principal.id);
      if (parsed.kind === 'answer') context.metrics.answers.inc({ outcome: 'accepted' });
    } catch (error) {
      if (parsed.kind === 'answer') context.metrics.answers.inc({ outcome: outcomeOf(error) });
      // A refused request leaves nothing stored, its key included.
      stopKeeping();
      if (claim !== undefined) await context.log.releaseIdempotency(claim);
      throw error;
    }
    const streaming = wantsEvents(c);
    const { logger } = context;
    const failed = (what: string) => (error: unknown) => {
      logger.error(what, { sessionId: id, error: String(error) });
    };
    if (claim !== undefined && running.after !== recorded) {
      // Another reply ran in between: the claim names the number this one started after.
      await context.log
        .startIdempotency({ ...claim, after: running.after })
        .catch(failed('Could not record the start of an idempotent request.'));
    }
    // Before anyone is told the reply is over, the approvals index follows
    // its state and a keyed request's outcome is stored.
    const settled = running.done.then(async (outcome) => {
      // The JSON response reports a failure itself; a stream's client only sees it end.
      if (outcome.error !== undefined && streaming) failed('A reply failed.')(outcome.error);
      await indexWaiting(context, id).catch(failed('Could not refresh the approvals index.'));
      // Only a JSON response, or a keyed request's stored outcome, needs the message.
      const needed = outcome.error === undefined && (!streaming || claim !== undefined);
      // Never rejects: close() and the stream's end wait on this.
      const message = needed
        ? await finalMessage(context, id).catch((error: unknown) => {
            failed('Could not read the final message of a reply.')(error);
            return undefined;
          })
        : undefined;
      stopKeeping();
      if (claim !== undefined) {
        // A failed request keeps its error response: a JSON retry gets it again.
        const failure = replyFailure(outcome.error, message);
        const problem = failure === undefined ? undefined : problemFor(failure, context.clock());
        await context.log
          .settleIdempotency({
            ...claim,
            after: running.after,
            lastSeq: outcome.lastSeq,
            response: JSON.stringify(problem?.problem ?? { message }),
            status: problem?.problem.status ?? 200,
          })
          .catch(failed('Could not store the outcome of an idempotent request.'));
      }
      return { ...outcome, message };
    });
    const task: RunningReply = { ...running, done: settled };
    context.running.add(task);
    void settled.finally(() => context.running.delete(task));
    if (streaming) {
      const end = settled.then(({ lastSeq }) => lastSeq);
      return sseResponse(
        c,
        context,
        (signal) => followEventBatches(context.log, context.feed, id, running.after, signal, end),
        { onFirst: () => stopTimer() },
      );
    }
    stopTimer();
    const outcome = await settled;
    const failure = replyFailure(outcome.error, outcome.message);
    if (failure !== undefined) throw failure;
    return c.json({ message: outcome.message }, 200);
  });

  app.openapi(cancelReply, async (c) => {
    const { id } = c.req.valid('param');
    const principal = c.get('principal');
    const record = await visibleSession(context, principal, id);
    if (record.owner !== principal.id) {
      throw new ForbiddenError('Only the owner of a session may cancel its reply.');
    }
    const key = c.req.valid('header')['idempotency-key'];
    const claim = idempotencyClaim(principal.id, key, `cancel ${id}`, null, context);
    const outcome = await idempotentOutcome(
      context.log,
      claim,
      context,
      cancelledSchema,
      async () => {
        const cancelled = await context.sessions.cancel(id);
        await indexWaiting(context, id);
        return { cancelled };
      },
    );
    return c.json(outcome, 200);
  });

  app.openapi(listApprovals, async (c) => {
    const principal = c.get('principal');
    const approvals = await context.log.listWaiting(isApprover(principal) ? null : principal.id);
    return c.json({ approvals }, 200);
  });

  app.openapi(getEvents, async (c) => {
    const { id } = c.req.valid('param');
    await visibleSession(context, c.get('principal'), id);
    const after = afterOf(c.req.header('last-event-id'), c.req.valid('query').after);
    return sseResponse(c, context, (signal) =>
      followEventBatches(context.log, context.feed, id, after, signal),
    );
  });
}
