/** Helpers for reading a `ChatModel` stream in tests. */
import type { ChatChunk, ChatModel, ChatRequest, Msg } from '@parley/core';

/** Every chunk of a stream. */
export async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The chunks a stream yielded before it failed, and the error. */
export async function collectError(
  stream: AsyncIterable<ChatChunk>,
): Promise<{ chunks: ChatChunk[]; error: unknown }> {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  throw new Error(`expected the stream to fail; it yielded ${chunks.length} chunks`);
}

/** The concatenated text deltas. */
export function textOf(chunks: readonly ChatChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text_delta' ? chunk.delta : '')).join('');
}

/** The concatenated thinking deltas. */
export function thinkingOf(chunks: readonly ChatChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'thinking_delta' ? chunk.delta : '')).join('');
}

/**
 * The tool calls of a stream, in start order, with their arguments put
 * back together. Throws if the chunks break the protocol: a second start
 * for an id, a delta outside start..end, a call never ended, anything
 * after `finish`, or `finish` missing.
 */
export function toolCallsOf(
  chunks: readonly ChatChunk[],
): { id: string; name: string; input: unknown }[] {
  const calls = new Map<string, { name: string; raw: string; ended: boolean }>();
  chunks.forEach((chunk, position) => {
    if (chunk.type === 'finish' && position !== chunks.length - 1) {
      throw new Error('finish is not the last chunk');
    }
    if (chunk.type === 'tool_call_start') {
      if (calls.has(chunk.id)) throw new Error(`second tool_call_start for ${chunk.id}`);
      calls.set(chunk.id, { name: chunk.name, raw: '', ended: false });
    } else if (chunk.type === 'tool_call_delta' || chunk.type === 'tool_call_end') {
      const call = calls.get(chunk.id);
      if (call === undefined || call.ended)
        throw new Error(`${chunk.type} outside its call ${chunk.id}`);
      if (chunk.type === 'tool_call_delta') call.raw += chunk.delta;
      else call.ended = true;
    }
  });
  if (chunks.at(-1)?.type !== 'finish') throw new Error('no finish chunk at the end');
  return [...calls].map(([id, call]) => {
    if (!call.ended) throw new Error(`tool call ${id} never ended`);
    const input: unknown = JSON.parse(call.raw);
    return { id, name: call.name, input };
  });
}

/** A model that answers every request with one text, as a fallback stand-in. */
export class FixedTextModel implements ChatModel {
  readonly name: string;
  readonly requests: ChatRequest[] = [];
  readonly #text: string;
  constructor(name: string, text: string) {
    this.name = name;
    this.#text = text;
  }
  async *stream(request: ChatRequest): AsyncGenerator<ChatChunk> {
    this.requests.push(request);
    yield { type: 'text_delta', delta: this.#text };
    yield { type: 'finish', finishedReason: 'stop' };
  }
}

let counter = 0;

/** A message with fixed fields, for building conversations. */
export function message(role: Msg['role'], content: Msg['content']): Msg {
  counter += 1;
  return { id: `m${counter}`, name: role, role, content };
}

/** A one-message request. */
export function ask(text: string, tools: ChatRequest['tools'] = []): ChatRequest {
  return { systemPrompt: 'You are terse.', messages: [message('user', text)], tools };
}
