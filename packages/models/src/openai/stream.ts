import { randomUUID } from 'node:crypto';
import type { ChatChunk } from '@parley/core';
import { incompleteStreamError } from '../shared/errors.js';
import {
  ShapeError,
  readNumber,
  readObject,
  readOptionalArray,
  readOptionalNumber,
  readOptionalObject,
  readOptionalString,
} from '../shared/read.js';
import type { StreamTranslator } from '../shared/translate.js';

type OpenToolCall = {
  id: string;
  name: string | undefined;
  started: boolean;
  /** Argument text that arrived before the call's name (emitted once the call starts). */
  pending: string;
};

/**
 * Translates `chat.completion.chunk` payloads into Parley chunks.
 *
 * Streamed tool calls are keyed by `choices[0].delta.tool_calls[].index`:
 * the first delta of an index carries the call's `id` and function name,
 * later ones only argument fragments, and fragments of several calls may
 * interleave. Each index gets one `tool_call_start` (with the id the server
 * gave, or a generated one if it gave none), its `tool_call_delta`s, and a
 * `tool_call_end` when the choice reports its `finish_reason`. Text comes
 * from `delta.content` (and `delta.refusal`); thinking from
 * `delta.reasoning_content`, as DeepSeek and other compatible servers send
 * it. Usage arrives on the last chunk, whose `choices` is empty. Only
 * choice 0 is read (Parley never asks for `n` > 1).
 */
export class OpenAIStreamTranslator implements StreamTranslator {
  readonly #provider: string;
  readonly #calls = new Map<number, OpenToolCall>();
  #finishReason: string | undefined;
  #usage: { inputTokens: number; outputTokens: number } | undefined;

  constructor(provider = 'openai') {
    this.#provider = provider;
  }

  accept(event: unknown): ChatChunk[] {
    const chunk = readObject(event, 'chunk');
    const out: ChatChunk[] = [];
    const usage = readOptionalObject(chunk, 'usage', 'chunk');
    if (usage !== undefined) {
      this.#usage = {
        inputTokens: readOptionalNumber(usage, 'prompt_tokens', 'chunk.usage') ?? 0,
        outputTokens: readOptionalNumber(usage, 'completion_tokens', 'chunk.usage') ?? 0,
      };
    }
    const choices = readOptionalArray(chunk, 'choices', 'chunk') ?? [];
    choices.forEach((value, position) => {
      const path = `chunk.choices[${position}]`;
      const choice = readObject(value, path);
      if ((readOptionalNumber(choice, 'index', path) ?? 0) !== 0) return;
      const delta = readOptionalObject(choice, 'delta', path);
      if (delta !== undefined) this.#acceptDelta(delta, `${path}.delta`, out);
      const finishReason = readOptionalString(choice, 'finish_reason', path);
      if (finishReason !== undefined) {
        this.#finishReason = finishReason === 'function_call' ? 'tool_calls' : finishReason;
        out.push(...this.#closeCalls());
      }
    });
    return out;
  }

  finish(): ChatChunk[] {
    if (this.#finishReason === undefined) {
      throw incompleteStreamError(this.#provider, 'no chunk carried a finish_reason');
    }
    const out = this.#closeCalls();
    if (this.#usage !== undefined) out.push({ type: 'usage', ...this.#usage });
    out.push({ type: 'finish', finishedReason: this.#finishReason });
    return out;
  }

  #acceptDelta(delta: Record<string, unknown>, path: string, out: ChatChunk[]): void {
    const reasoning = readOptionalString(delta, 'reasoning_content', path);
    if (reasoning !== undefined && reasoning !== '') {
      out.push({ type: 'thinking_delta', delta: reasoning });
    }
    const content = readOptionalString(delta, 'content', path);
    if (content !== undefined && content !== '') out.push({ type: 'text_delta', delta: content });
    const refusal = readOptionalString(delta, 'refusal', path);
    if (refusal !== undefined && refusal !== '') out.push({ type: 'text_delta', delta: refusal });
    const toolCalls = readOptionalArray(delta, 'tool_calls', path) ?? [];
    toolCalls.forEach((value, position) => {
      this.#acceptToolCall(
        readObject(value, `${path}.tool_calls[${position}]`),
        position,
        path,
        out,
      );
    });
  }

  #acceptToolCall(
    delta: Record<string, unknown>,
    position: number,
    parentPath: string,
    out: ChatChunk[],
  ): void {
    const path = `${parentPath}.tool_calls[${position}]`;
    const index = readNumber(delta, 'index', path);
    const fn = readOptionalObject(delta, 'function', path);
    const name = fn === undefined ? undefined : readOptionalString(fn, 'name', `${path}.function`);
    const fragment =
      fn === undefined ? undefined : readOptionalString(fn, 'arguments', `${path}.function`);
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = {
        id: readOptionalString(delta, 'id', path) ?? `call_${randomUUID()}`,
        name: undefined,
        started: false,
        pending: '',
      };
      this.#calls.set(index, call);
    }
    if (!call.started && name !== undefined && name !== '') call.name = name;
    if (fragment !== undefined && fragment !== '') {
      if (call.started) out.push({ type: 'tool_call_delta', id: call.id, delta: fragment });
      else call.pending += fragment;
    }
    if (!call.started && call.name !== undefined) {
      call.started = true;
      out.push({ type: 'tool_call_start', id: call.id, name: call.name });
      if (call.pending !== '')
        out.push({ type: 'tool_call_delta', id: call.id, delta: call.pending });
      call.pending = '';
    }
  }

  /** Ends every started call, in index order; a call that never got a name is malformed. */
  #closeCalls(): ChatChunk[] {
    const out: ChatChunk[] = [];
    const indexes = [...this.#calls.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const call = this.#calls.get(index);
      if (call === undefined) continue;
      if (!call.started) {
        throw new ShapeError(
          `chunk.choices[0].delta.tool_calls (index ${index})`,
          'a tool call never received a function name',
        );
      }
      out.push({ type: 'tool_call_end', id: call.id });
    }
    this.#calls.clear();
    return out;
  }
}
