import type { ToolCallBlock, ToolResultBlock } from '../message/index.js';
import type {
  Tool,
  ToolChunk,
  ToolOutput,
  ToolContext,
  ToolResponse,
  ToolSuspendChunk,
} from '../tool/index.js';
import type { AgentEvent } from '../event/index.js';
import { assertNever } from '../errors/index.js';
import { compose, contextOf } from './middleware.js';
import type { ActingContext } from './middleware.js';
import type { Evaluated } from './permission-step.js';
import type { ReplyRun } from './reply-run.js';
import { agentTexts } from './texts.js';
import { OutputCollector } from './tool-result.js';

function isAsyncIterable(value: unknown): value is AsyncIterable<ToolChunk> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** A whole (non-streamed) result as chunks. */
function chunksOf(value: string | ToolResponse): ToolChunk[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const parts: ToolChunk[] =
    typeof value.output === 'string' ? [{ type: 'text', text: value.output }] : [...value.output];
  parts.push({
    type: 'tool_end',
    ...(value.state === undefined ? {} : { state: value.state }),
    ...(value.metadata === undefined ? {} : { metadata: value.metadata }),
  });
  return parts;
}

/** Whatever `execute` returned, as a stream of chunks. */
async function* toChunks(output: ToolOutput | Promise<ToolOutput>): AsyncGenerator<ToolChunk> {
  const value = await output;
  if (isAsyncIterable(value)) yield* value;
  else yield* chunksOf(value);
}

/** Marks an allowed call as started: TOOL_RESULT_START, then the claim checkpoint. */
export function* startCall(run: ReplyRun, call: ToolCallBlock): Generator<AgentEvent> {
  run.updateCall(call.id, { state: 'allowed' });
  if (!run.resultStarted(call)) {
    yield run.event('TOOL_RESULT_START', { toolCallId: call.id, toolCallName: call.name });
  }
  run.markExecuting(call.id, true);
}

/** What `execute` returned, as chunks: a whole result is the list of its chunks. */
function asChunks(output: ToolOutput): ToolChunk[] | AsyncIterable<ToolChunk> {
  return isAsyncIterable(output) ? output : chunksOf(output);
}

/** The tool's output for `input` through the `onActing` middlewares. */
function throughMiddlewares(
  run: ReplyRun,
  call: ToolCallBlock,
  tool: Tool<unknown>,
  input: unknown,
  context: ToolContext,
): AsyncIterable<ToolChunk> {
  const execute = tool.execute?.bind(tool);
  const inner = (acting: ActingContext): AsyncIterable<ToolChunk> =>
    execute === undefined
      ? toChunks({ output: `Tool '${tool.name}' cannot run locally.`, state: 'error' })
      : toChunks(execute(acting.input, context));
  const copy = run.deps.copyFor.acting;
  return compose(
    run.deps.actingHooks,
    inner,
  )(
    contextOf(run.info, {
      toolCall: copy ? structuredClone(call) : call,
      input: copy ? structuredClone(input) : input,
      tool,
      signal: run.signal,
    }),
  );
}

/** Takes one chunk of a tool's output; returns the event that announces it, if any. */
function takeChunk(
  run: ReplyRun,
  toolCallId: string,
  collector: OutputCollector,
  chunk: Exclude<ToolChunk, ToolSuspendChunk>,
): AgentEvent | undefined {
  switch (chunk.type) {
    case 'text':
      collector.add(chunk);
      return run.event('TOOL_RESULT_TEXT_DELTA', { toolCallId, delta: chunk.text });
    case 'data':
      collector.add(chunk);
      return chunk.source.type === 'base64'
        ? run.event('TOOL_RESULT_DATA_DELTA', {
            toolCallId,
            mediaType: chunk.source.mediaType,
            data: chunk.source.data,
          })
        : run.event('TOOL_RESULT_DATA_DELTA', {
            toolCallId,
            mediaType: chunk.source.mediaType,
            url: chunk.source.url,
          });
    case 'tool_end':
      collector.end(chunk);
      return undefined;
    default:
      return assertNever(chunk, 'tool chunk');
  }
}

/**
 * Runs an allowed local tool call (after `startCall` and the claim
 * checkpoint): streams its chunks as TOOL_RESULT_* events through the
 * `onActing` middlewares, and appends the result. A tool that throws gives
 * an `error` result; one stopped by the reply's abort gives `interrupted`.
 * A tool that suspends (`tool_suspend`) gets no result yet: the call it
 * raised is added as a submitted external call (announced with its own
 * TOOL_RESULT_START) and the caller parks the reply.
 */
export async function* executeCall(
  run: ReplyRun,
  call: ToolCallBlock,
  evaluated: Evaluated,
): AsyncGenerator<AgentEvent, void> {
  const { tool, input, decision } = evaluated;
  const toolCallId = call.id;
  const context: ToolContext = {
    toolCallId,
    replyId: run.replyId,
    sessionId: run.state.sessionId,
    signal: run.signal,
    permission: run.state.permission,
    logger: run.deps.logger,
  };
  if (decision.allowedBy !== undefined) context.allowedBy = decision.allowedBy;
  const answers = run.answersFor(toolCallId);
  if (answers.length > 0) context.answers = answers;
  const collector = new OutputCollector();
  let suspension: ToolSuspendChunk | undefined;
  try {
    // Without middlewares the tool is called directly, and a whole result is
    // read without a stream around it. (Decided by the hooks, not by the
    // returned value: a tool returning nothing must not run twice.)
    const chunks =
      run.deps.actingHooks.length === 0 && tool.execute !== undefined
        ? asChunks(await tool.execute(input, context))
        : throughMiddlewares(run, call, tool, input, context);
    if (Array.isArray(chunks)) {
      for (const chunk of chunks) {
        if (chunk.type === 'tool_suspend') {
          suspension = chunk;
          break;
        }
        const event = takeChunk(run, toolCallId, collector, chunk);
        if (event !== undefined) yield event;
      }
    } else {
      for await (const chunk of chunks) {
        if (chunk.type === 'tool_suspend') {
          suspension = chunk;
          break;
        }
        const event = takeChunk(run, toolCallId, collector, chunk);
        if (event !== undefined) yield event;
      }
    }
  } catch (error) {
    suspension = undefined;
    const text = run.signal.aborted
      ? agentTexts.toolInterrupted
      : error instanceof Error
        ? error.message
        : String(error);
    collector.add({ type: 'text', text });
    collector.fail(run.signal.aborted ? 'interrupted' : 'error');
    yield run.event('TOOL_RESULT_TEXT_DELTA', { toolCallId, delta: text });
  }
  if (suspension !== undefined && !run.signal.aborted) {
    const raised = run.raise(toolCallId, suspension.name, suspension.input);
    run.markExecuting(toolCallId, false);
    if (run.persists) await run.checkpoint('after_tool');
    yield run.event('TOOL_RESULT_START', { toolCallId: raised.id, toolCallName: raised.name });
    return;
  }
  const { state, metadata } = collector;
  const result: ToolResultBlock = {
    type: 'tool_result',
    id: toolCallId,
    name: call.name,
    output: collector.output(),
    state,
  };
  if (Object.keys(metadata).length > 0) result.metadata = metadata;
  // Stored and persisted before it is announced: a caller that stops reading
  // at TOOL_RESULT_END must find the call finished as announced.
  run.finishCall(result);
  if (run.persists) await run.checkpoint('after_tool');
  yield run.event('TOOL_RESULT_END', { toolCallId, state, metadata });
}
