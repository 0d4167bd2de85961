import { randomUUID } from 'node:crypto';
import type { ChatChunk } from '@parley/core';
import { incompleteStreamError } from '../shared/errors.js';
import {
  ShapeError,
  isRecord,
  readObject,
  readOptionalArray,
  readOptionalBoolean,
  readOptionalNumber,
  readOptionalObject,
  readOptionalString,
  readString,
} from '../shared/read.js';
import type { StreamTranslator } from '../shared/translate.js';

/**
 * Translates `/api/chat` stream objects into Parley chunks. Each object has
 * a `message` with `thinking` and `content` fragments; tool calls arrive
 * whole (`message.tool_calls[].function` with `arguments` as an object and
 * no id), so each becomes a start, one delta with the JSON arguments and an
 * end, under a generated id. The last object has `done: true`, the
 * `done_reason` and the token counts (`prompt_eval_count`, `eval_count`).
 */
export class OllamaStreamTranslator implements StreamTranslator {
  #done = false;
  #sawToolCall = false;
  #doneReason = 'stop';
  #usage: { inputTokens: number; outputTokens: number } | undefined;

  accept(value: unknown): ChatChunk[] {
    const chunk = readObject(value, 'chunk');
    const out: ChatChunk[] = [];
    const message = readOptionalObject(chunk, 'message', 'chunk');
    if (message !== undefined) this.#acceptMessage(message, out);
    const done = readOptionalBoolean(chunk, 'done', 'chunk');
    if (done === undefined) throw new ShapeError('chunk.done', 'expected a boolean, got nothing');
    if (done) {
      this.#done = true;
      this.#doneReason = readOptionalString(chunk, 'done_reason', 'chunk') ?? 'stop';
      const input = readOptionalNumber(chunk, 'prompt_eval_count', 'chunk');
      const output = readOptionalNumber(chunk, 'eval_count', 'chunk');
      if (input !== undefined || output !== undefined) {
        this.#usage = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
      }
    }
    return out;
  }

  finish(): ChatChunk[] {
    if (!this.#done) throw incompleteStreamError('ollama', 'no object with done: true');
    const out: ChatChunk[] = [];
    if (this.#usage !== undefined) out.push({ type: 'usage', ...this.#usage });
    const reason =
      this.#doneReason === 'stop' && this.#sawToolCall ? 'tool_calls' : this.#doneReason;
    out.push({ type: 'finish', finishedReason: reason });
    return out;
  }

  #acceptMessage(message: Record<string, unknown>, out: ChatChunk[]): void {
    const thinking = readOptionalString(message, 'thinking', 'chunk.message');
    if (thinking !== undefined && thinking !== '')
      out.push({ type: 'thinking_delta', delta: thinking });
    const content = readOptionalString(message, 'content', 'chunk.message');
    if (content !== undefined && content !== '') out.push({ type: 'text_delta', delta: content });
    const calls = readOptionalArray(message, 'tool_calls', 'chunk.message') ?? [];
    calls.forEach((value, position) => {
      const path = `chunk.message.tool_calls[${position}]`;
      const fn = readObject(readObject(value, path)['function'], `${path}.function`);
      const name = readString(fn, 'name', `${path}.function`);
      const args = fn['arguments'];
      let input: string;
      if (typeof args === 'string') input = args;
      else if (args === undefined || args === null) input = '{}';
      else if (isRecord(args)) input = JSON.stringify(args);
      else throw new ShapeError(`${path}.function.arguments`, 'expected an object');
      const id = `call_${randomUUID()}`;
      this.#sawToolCall = true;
      out.push(
        { type: 'tool_call_start', id, name },
        { type: 'tool_call_delta', id, delta: input },
        { type: 'tool_call_end', id },
      );
    });
  }
}
