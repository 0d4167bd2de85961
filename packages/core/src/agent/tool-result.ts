import type { DataBlock, TextBlock, ToolCallBlock, ToolResultBlock } from '../message/index.js';
import type { AgentEvent } from '../event/index.js';
import type { ToolEndChunk } from '../tool/index.js';
import type { ReplyRun } from './reply-run.js';

type ClosingState = 'error' | 'denied' | 'interrupted';

/**
 * Closes a call with a text result that the runtime wrote (an error, a
 * denial, an interruption): TOOL_RESULT_START unless one was already emitted,
 * the text as one delta, and TOOL_RESULT_END.
 */
export function* closeCall(
  run: ReplyRun,
  call: ToolCallBlock,
  text: string,
  state: ClosingState,
  metadata: Record<string, unknown> = {},
): Generator<AgentEvent> {
  const toolCallId = call.id;
  if (!run.resultStarted(call)) {
    yield run.event('TOOL_RESULT_START', { toolCallId, toolCallName: call.name });
  }
  yield run.event('TOOL_RESULT_TEXT_DELTA', { toolCallId, delta: text });
  const result: ToolResultBlock = {
    type: 'tool_result',
    id: toolCallId,
    name: call.name,
    output: text,
    state,
  };
  if (Object.keys(metadata).length > 0) result.metadata = metadata;
  // Stored before it is announced, so a caller that stops at TOOL_RESULT_END finds it so.
  run.finishCall(result);
  yield run.event('TOOL_RESULT_END', { toolCallId, state, metadata });
}

/**
 * Collects a tool's streamed output into a result: the parts into `output`
 * (one string when it is all text), and the state and metadata of its end.
 */
export class OutputCollector {
  private readonly parts: (TextBlock | DataBlock)[] = [];
  state: ToolResultBlock['state'] = 'success';
  metadata: Record<string, unknown> = {};

  /** The closing chunk: its state and metadata, when given, are the result's. */
  end(chunk: ToolEndChunk): void {
    if (chunk.state !== undefined) this.state = chunk.state;
    if (chunk.metadata !== undefined) this.metadata = chunk.metadata;
  }

  /** The tool failed or was stopped (its metadata, if any, is kept). */
  fail(state: 'error' | 'interrupted'): void {
    this.state = state;
  }

  add(part: TextBlock | DataBlock): void {
    const last = this.parts.at(-1);
    if (part.type === 'text' && last?.type === 'text') {
      this.parts[this.parts.length - 1] = { type: 'text', text: last.text + part.text };
    } else {
      this.parts.push(part.type === 'text' ? { type: 'text', text: part.text } : part);
    }
  }

  output(): string | (TextBlock | DataBlock)[] {
    if (this.parts.every((part) => part.type === 'text')) {
      return this.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    }
    return this.parts;
  }
}
