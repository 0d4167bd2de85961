import { createRoute, z } from '@hono/zod-openapi';
import { EventType } from '@ag-ui/core';
import type { AgentCapabilities, BaseEvent, RunErrorEvent } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { ClosingNote } from '../events/closing-frame.js';
import { InvalidRequestError } from '../errors.js';
import { followEvents } from '../events/follow-events.js';
import type { ServerApp, ServerContext, ServerEnv } from '../http/server-context.js';
import { problemResponses, problemSchema } from '../http/schemas.js';
import { guardStream } from '../http/middleware/stream-guard.js';
import { startAguiRun } from './agui-run.js';
import type { FrontendTools } from './frontend-tools.js';
import { parseOutline, showRun } from './run-outline.js';
import type { RunShow } from './run-outline.js';

const problem = (description: string) =>
  ({ description, content: { 'application/problem+json': { schema: problemSchema } } }) as const;

const postRun = createRoute({
  method: 'post',
  path: '/v1/agui',
  summary: 'Run the agent over AG-UI 1.0 (RunAgentInput in, AG-UI events out)',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.record(z.string(), z.unknown()).openapi({
            description: 'An AG-UI RunAgentInput; threadId is the session id.',
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description:
        'AG-UI events as SSE, or length-prefixed protobuf when Accept asks for application/vnd.ag-ui.event+proto',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    ...problemResponses,
    403: problem('mayAnswer refused an answer, or an approver sent a message'),
    409: problem('Busy session, lost race, or the same run still running'),
    410: problem('An answered interrupt expired'),
    413: problem('Body over the limit'),
    422: problem('The same (threadId, runId) with another input'),
  },
});

/** What the endpoint declares it can do (AG-UI `AgentCapabilities`). */
export const aguiCapabilities: AgentCapabilities = {
  identity: { name: 'parley', type: 'parley' },
  transport: { streaming: true, httpBinary: true },
  tools: { supported: true, parallelCalls: true, clientProvided: true },
  reasoning: { supported: true, streaming: true },
  humanInTheLoop: {
    supported: true,
    approvals: true,
    interrupts: true,
    approveWithEdits: true,
  },
};

const getCapabilities = createRoute({
  method: 'get',
  path: '/v1/agui',
  summary: 'What the AG-UI endpoint can do (AgentCapabilities)',
  responses: {
    200: {
      description: 'AgentCapabilities',
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
    401: problemResponses[401],
  },
});

/** Reads a RunAgentInput; a bad one is 400 naming the first bad field. */
function parseInput(body: unknown) {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map(String).join('.');
    throw new InvalidRequestError(
      path,
      `${path === '' ? '(body)' : path}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const input = parsed.data;
  if (!/^[\w.:-]{1,200}$/.test(input.threadId)) {
    throw new InvalidRequestError(
      'threadId',
      'threadId: 1 to 200 letters, digits, "_", "-", "." or ":" (it is the session id).',
    );
  }
  if (input.runId.length === 0 || input.runId.length > 200) {
    throw new InvalidRequestError('runId', 'runId: must be 1 to 200 characters.');
  }
  return input;
}

/**
 * The items of `items` until `signal` aborts, even while `items` waits for
 * its next one (a run's events wait for the run's outline once its Parley
 * events end): a stream closed early does not wait for the run to end.
 */
async function* untilAborted<T>(
  items: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const iterator = items[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted' || next.done === true) return;
      yield next.value;
    }
  } finally {
    // Finishes once the iterator gets past what it waits on; nothing is lost by not waiting.
    void iterator.return?.()?.catch(() => undefined);
  }
}

/**
 * Writes the run's AG-UI events, SSE (with `: ping` comments) or protobuf,
 * as the encoder chose. Once the caller's credentials are no longer valid,
 * the stream ends with a `RUN_ERROR` (code `unauthenticated`) saying so;
 * the run's replies go on.
 */
function respond(
  c: Context<ServerEnv>,
  context: ServerContext,
  encoder: EventEncoder,
  events: (signal: AbortSignal) => AsyncIterable<BaseEvent>,
): Response {
  const sse = encoder.getContentType() === 'text/event-stream';
  c.header('Content-Type', encoder.getContentType());
  c.header('Cache-Control', 'no-store');
  const controller = new AbortController();
  let closed: ClosingNote | undefined;
  const release = guardStream(c, context, (note) => {
    closed = note;
    controller.abort();
  });
  return stream(c, async (out) => {
    const stop = (): void => {
      controller.abort();
    };
    out.onAbort(stop);
    context.closing.addEventListener('abort', stop);
    context.metrics.sseClients.inc();
    const ping = sse
      ? setInterval(() => {
          void out.write(': ping\n\n');
        }, context.pingMs)
      : undefined;
    try {
      for await (const event of untilAborted(events(controller.signal), controller.signal)) {
        await out.write(encoder.encodeBinary(event));
      }
      if (closed !== undefined && !out.aborted) {
        const error: RunErrorEvent = {
          type: EventType.RUN_ERROR,
          message: closed.detail,
          code: closed.reason,
        };
        await out.write(encoder.encodeBinary(error));
      }
    } finally {
      release();
      clearInterval(ping);
      context.closing.removeEventListener('abort', stop);
      controller.abort();
      context.metrics.sseClients.dec();
    }
  });
}

/**
 * Registers `POST /v1/agui` (an AG-UI run over the session `threadId`, see
 * HTTP.md, "AG-UI") and `GET /v1/agui` (its capabilities).
 */
export function registerAguiRoutes(
  app: ServerApp,
  context: ServerContext,
  frontend: FrontendTools,
): void {
  app.openapi(getCapabilities, (c) => c.json(aguiCapabilities, 200));

  app.openapi(postRun, async (c) => {
    const input = parseInput(c.req.valid('json'));
    const encoder = new EventEncoder({ accept: c.req.header('accept') ?? 'text/event-stream' });
    const started = await startAguiRun({ context, frontend }, c.get('principal'), input);
    const { threadId, runId } = input;
    let show: (signal: AbortSignal) => RunShow;
    if ('replay' in started) {
      const { after, lastSeq, response } = started.replay;
      const outline = parseOutline(response ?? '');
      show = (signal) => ({
        threadId,
        runId,
        warnings: outline.warnings,
        events: followEvents(
          context.log,
          context.feed,
          threadId,
          after ?? 0,
          signal,
          Promise.resolve(lastSeq ?? 0),
        ),
        outline,
      });
    } else {
      show = (signal) => ({
        threadId,
        runId,
        warnings: started.warnings,
        events: followEvents(
          context.log,
          context.feed,
          threadId,
          started.after,
          signal,
          started.lastSeq,
        ),
        outline: started.outline,
      });
    }
    return respond(c, context, encoder, (signal) => showRun(show(signal)));
  });
}
