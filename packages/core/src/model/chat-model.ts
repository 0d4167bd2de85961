import type { Msg } from '../message/index.js';

/** What a model is told about one tool: its name, description and JSON Schema input. */
export type ToolSchema = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
};

/**
 * One model call. `messages` is the conversation (the reply in progress last,
 * as one assistant message); adapters turn it into provider turns with
 * `toConversation`.
 */
export type ChatRequest = {
  systemPrompt: string;
  messages: Msg[];
  tools: ToolSchema[];
};

/** Token counts of one model call. */
export type ChatUsage = { inputTokens: number; outputTokens: number };

/**
 * What a model streams. Text and thinking arrive as deltas; a tool call is
 * opened with its id and name, its JSON arguments arrive as deltas (several
 * calls may interleave, keyed by `id`), and it is closed. `finish` comes last;
 * its `finishedReason` is one of `stop`, `tool_calls`, `length`,
 * `content_filter`, or the provider's own word for anything else.
 *
 * Thinking blocks are kept apart: `thinking_signature` ends the open thinking
 * block with its signature (or, with none open, is a block of its own with no
 * text), so the next `thinking_delta` starts a new block; `redacted_thinking`
 * is one whole redacted block, its `data` opaque. With `finish` `length`, a
 * tool call the output stopped in (the turn's last block, or one never
 * ended) is never run: it gets an error result saying the output was cut off.
 */
export type ChatChunk =
  | { type: 'text_delta'; delta: string }
  | { type: 'thinking_delta'; delta: string }
  | { type: 'thinking_signature'; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | {
      type: 'data';
      source:
        | { type: 'base64'; data: string; mediaType: string }
        | { type: 'url'; url: string; mediaType: string };
    }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; delta: string }
  | { type: 'tool_call_end'; id: string }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'finish'; finishedReason: string };

/**
 * The port every model adapter implements. One method, one mode: a stream.
 * It must honour `signal` (stop reading and throw an `AbortError`).
 */
export interface ChatModel {
  readonly name: string;
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk>;
}
