import type { ChatChunk, ChatModel, ChatRequest } from '../model/index.js';
import { ModelError } from '../errors/index.js';

/** A tool call a scripted turn makes. `input` may be an object (sent as JSON) or raw text. */
export type ScriptedToolCall = {
  id?: string;
  name: string;
  input: Record<string, unknown> | string;
};

/** One scripted model turn. Parts are streamed in the order thinking, text, tool calls. */
export type ScriptedTurn = {
  thinking?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: { inputTokens: number; outputTokens: number };
  /** Thrown instead of answering (after `failAfterChunks` chunks, default 0). */
  error?: Error;
  failAfterChunks?: number;
  finishedReason?: string;
};

/** A turn, or a function of the request that makes one (to script reactions). */
export type ScriptedStep = ScriptedTurn | ((request: ChatRequest) => ScriptedTurn);

/** Options of `ScriptedModel`: its name, how it chunks its turns, what follows the last one. */
export type ScriptedModelOptions = {
  name?: string;
  /** Split text, thinking and tool-call arguments into deltas of this many characters. */
  chunkSize?: number;
  /** Interleave the argument deltas of parallel tool calls. */
  interleave?: boolean;
  /** Repeat the last step forever instead of failing when the script runs out. */
  repeatLast?: boolean;
  /** Keep a copy of every request in `requests` (default true; benchmarks turn it off). */
  record?: boolean;
};

function split(text: string, size: number | undefined): string[] {
  if (size === undefined || size <= 0 || text.length <= size) return [text];
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/**
 * A deterministic `ChatModel` that plays a script, for tests and offline
 * demos. Every request it receives is recorded in `requests` (a deep copy,
 * as the model saw it), unless `record: false`.
 *
 * @example
 * const model = new ScriptedModel([
 *   { toolCalls: [{ id: 'tc1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
 *   { text: 'done' },
 * ]);
 */
export class ScriptedModel implements ChatModel {
  readonly name: string;
  readonly requests: ChatRequest[] = [];
  private readonly steps: ScriptedStep[];
  private readonly options: ScriptedModelOptions;
  private position = 0;
  private callCounter = 0;

  constructor(steps: ScriptedStep[], options: ScriptedModelOptions = {}) {
    this.steps = [...steps];
    this.options = options;
    this.name = options.name ?? 'scripted';
  }

  /** How many steps are left to play. */
  get remaining(): number {
    return this.steps.length - this.position;
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    if (this.options.record !== false) this.requests.push(structuredClone(request));
    const turn = this.nextTurn(request);
    let sent = 0;
    for (const chunk of this.chunksOf(turn)) {
      if (signal?.aborted === true)
        throw signal.reason ?? new DOMException('Aborted', 'AbortError');
      if (turn.error !== undefined && sent >= (turn.failAfterChunks ?? 0)) throw turn.error;
      yield chunk;
      sent += 1;
      await Promise.resolve();
    }
    if (turn.error !== undefined) throw turn.error;
  }

  private nextTurn(request: ChatRequest): ScriptedTurn {
    let step = this.steps[this.position];
    if (step === undefined && this.options.repeatLast === true) step = this.steps.at(-1);
    if (step === undefined) {
      throw new ModelError(`ScriptedModel has no step left (played ${this.position}).`);
    }
    if (this.position < this.steps.length) this.position += 1;
    return typeof step === 'function' ? step(request) : step;
  }

  private *chunksOf(turn: ScriptedTurn): Generator<ChatChunk> {
    const size = this.options.chunkSize;
    if (turn.thinking !== undefined) {
      for (const delta of split(turn.thinking, size)) yield { type: 'thinking_delta', delta };
    }
    if (turn.text !== undefined) {
      for (const delta of split(turn.text, size)) yield { type: 'text_delta', delta };
    }
    const calls = (turn.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++this.callCounter}`,
      name: call.name,
      parts: split(typeof call.input === 'string' ? call.input : JSON.stringify(call.input), size),
    }));
    if (this.options.interleave === true) {
      for (const call of calls) yield { type: 'tool_call_start', id: call.id, name: call.name };
      const longest = Math.max(0, ...calls.map((call) => call.parts.length));
      for (let i = 0; i < longest; i++) {
        for (const call of calls) {
          const delta = call.parts[i];
          if (delta !== undefined) yield { type: 'tool_call_delta', id: call.id, delta };
        }
      }
      for (const call of calls) yield { type: 'tool_call_end', id: call.id };
    } else {
      for (const call of calls) {
        yield { type: 'tool_call_start', id: call.id, name: call.name };
        for (const delta of call.parts) yield { type: 'tool_call_delta', id: call.id, delta };
        yield { type: 'tool_call_end', id: call.id };
      }
    }
    const usage = turn.usage ?? { inputTokens: 0, outputTokens: 0 };
    yield { type: 'usage', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
    yield {
      type: 'finish',
      finishedReason: turn.finishedReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
    };
  }
}
