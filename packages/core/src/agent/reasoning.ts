import type { Msg, TextBlock, ThinkingBlock, ToolCallBlock } from '../message/index.js';
import type { ChatChunk, ChatRequest } from '../model/index.js';
import type { AgentEvent } from '../event/index.js';
import { ModelError, assertNever } from '../errors/index.js';
import { newId } from '../util/ids.js';
import { compose } from './middleware.js';
import type { ModelCallContext } from './middleware.js';
import type { ReplyRun } from './reply-run.js';

/** The request the model sees: the context as it stands (arrays copied, blocks shared). */
export function buildRequest(run: ReplyRun): ChatRequest {
  const messages: Msg[] = run.state.context.map((message) =>
    typeof message.content === 'string'
      ? { ...message }
      : { ...message, content: message.content.slice() },
  );
  return { systemPrompt: run.deps.systemPrompt, messages, tools: run.deps.toolkit.schemas() };
}

type OpenBlock = { kind: 'text'; block: TextBlock } | { kind: 'thinking'; block: ThinkingBlock };

/**
 * One model call: streams the model's output into the reply message and as
 * events, and returns the tool calls it made. If the model fails, the text
 * received so far is kept and the turn's tool calls are dropped (none of
 * them is complete enough to run), then the error is rethrown.
 */
export async function* reason(run: ReplyRun): AsyncGenerator<AgentEvent, ToolCallBlock[]> {
  const { model, middlewares } = run.deps;
  const request = buildRequest(run);
  yield run.event('MODEL_CALL_START', { modelName: model.name });

  const hooks = middlewares.flatMap((m) => (m.onModelCall ? [m.onModelCall] : []));
  const call = compose(hooks, (context: ModelCallContext) =>
    model.stream(context.request, context.signal),
  );
  let open: OpenBlock | undefined;
  const calls = new Map<string, ToolCallBlock>();
  const ended = new Set<string>();
  let inputTokens = 0;
  let outputTokens = 0;
  let finishedReason = 'stop';

  const close = function* (): Generator<AgentEvent> {
    if (open === undefined) return;
    const blockId = open.block.id ?? '';
    yield open.kind === 'text'
      ? run.event('TEXT_BLOCK_END', { blockId })
      : run.event('THINKING_BLOCK_END', { blockId });
    open = undefined;
  };

  try {
    for await (const chunk of call({ ...run.info, request, signal: run.signal })) {
      yield* handleChunk(chunk);
    }
    yield* close();
  } catch (error) {
    open = undefined;
    for (const id of calls.keys()) {
      const index = run.message.content.findIndex((b) => b.type === 'tool_call' && b.id === id);
      if (index >= 0) run.message.content.splice(index, 1);
    }
    throw error;
  }
  for (const [id] of calls) {
    if (!ended.has(id)) yield run.event('TOOL_CALL_END', { toolCallId: id });
  }
  yield run.event('MODEL_CALL_END', { inputTokens, outputTokens, finishedReason });
  return [...calls.values()].map((block) => run.call(block.id));

  function* handleChunk(chunk: ChatChunk): Generator<AgentEvent> {
    switch (chunk.type) {
      case 'text_delta':
      case 'thinking_delta': {
        const kind = chunk.type === 'text_delta' ? 'text' : 'thinking';
        if (open?.kind !== kind) {
          yield* close();
          const blockId = newId();
          if (kind === 'text') {
            const block: TextBlock = { type: 'text', text: '', id: blockId };
            open = { kind, block };
            run.append(block);
            yield run.event('TEXT_BLOCK_START', { blockId });
          } else {
            const block: ThinkingBlock = { type: 'thinking', thinking: '', id: blockId };
            open = { kind, block };
            run.append(block);
            yield run.event('THINKING_BLOCK_START', { blockId });
          }
        }
        const blockId = open.block.id ?? '';
        if (open.kind === 'text') {
          open.block.text += chunk.delta;
          yield run.event('TEXT_BLOCK_DELTA', { blockId, delta: chunk.delta });
        } else {
          open.block.thinking += chunk.delta;
          yield run.event('THINKING_BLOCK_DELTA', { blockId, delta: chunk.delta });
        }
        return;
      }
      case 'thinking_signature': {
        const target =
          open?.kind === 'thinking'
            ? open.block
            : run.message.content.findLast((b): b is ThinkingBlock => b.type === 'thinking');
        if (target !== undefined) target.signature = chunk.signature;
        return;
      }
      case 'data': {
        yield* close();
        const blockId = newId();
        run.append({ type: 'data', id: blockId, source: chunk.source });
        const mediaType = chunk.source.mediaType;
        yield run.event('DATA_BLOCK_START', { blockId, mediaType });
        yield chunk.source.type === 'base64'
          ? run.event('DATA_BLOCK_DELTA', { blockId, mediaType, data: chunk.source.data })
          : run.event('DATA_BLOCK_DELTA', { blockId, mediaType, url: chunk.source.url });
        yield run.event('DATA_BLOCK_END', { blockId });
        return;
      }
      case 'tool_call_start': {
        yield* close();
        const id = chunk.id === '' ? newId() : chunk.id;
        if (
          calls.has(id) ||
          run.message.content.some((b) => b.type === 'tool_call' && b.id === id)
        ) {
          throw new ModelError(`The model sent two tool calls with the same id '${id}'.`);
        }
        const block: ToolCallBlock = {
          type: 'tool_call',
          id,
          name: chunk.name,
          input: '',
          state: 'pending',
          suggestedRules: [],
        };
        calls.set(id, block);
        run.append(block);
        yield run.event('TOOL_CALL_START', { toolCallId: id, toolCallName: chunk.name });
        return;
      }
      case 'tool_call_delta': {
        const block = calls.get(chunk.id);
        if (block === undefined) {
          throw new ModelError(`The model sent arguments for unknown tool call '${chunk.id}'.`);
        }
        const updated = run.updateCall(chunk.id, { input: run.call(chunk.id).input + chunk.delta });
        calls.set(chunk.id, updated);
        yield run.event('TOOL_CALL_DELTA', { toolCallId: chunk.id, delta: chunk.delta });
        return;
      }
      case 'tool_call_end':
        if (calls.has(chunk.id) && !ended.has(chunk.id)) {
          ended.add(chunk.id);
          yield run.event('TOOL_CALL_END', { toolCallId: chunk.id });
        }
        return;
      case 'usage':
        inputTokens += chunk.inputTokens;
        outputTokens += chunk.outputTokens;
        return;
      case 'finish':
        finishedReason = chunk.finishedReason;
        return;
      default:
        assertNever(chunk, 'chat chunk');
    }
  }
}
