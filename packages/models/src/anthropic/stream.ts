import type { ChatChunk, Logger } from '@parley/core';
import { incompleteStreamError } from '../shared/errors.js';
import {
  ShapeError,
  readNumber,
  readObject,
  readOptionalNumber,
  readOptionalObject,
  readOptionalString,
  readString,
} from '../shared/read.js';
import type { StreamTranslator } from '../shared/translate.js';

type OpenBlock =
  | { kind: 'text' }
  | { kind: 'thinking'; signature: string }
  | { kind: 'redacted' }
  | { kind: 'tool'; id: string; initialInput: unknown; sentInput: boolean }
  | { kind: 'ignored' };

/** Anthropic stop reasons in the vocabulary Parley's other adapters use. */
export function finishReasonOf(stopReason: string): string {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return stopReason;
  }
}

function inputTokensOf(usage: Record<string, unknown>, path: string): number | undefined {
  const input = readOptionalNumber(usage, 'input_tokens', path);
  if (input === undefined) return undefined;
  return (
    input +
    (readOptionalNumber(usage, 'cache_creation_input_tokens', path) ?? 0) +
    (readOptionalNumber(usage, 'cache_read_input_tokens', path) ?? 0)
  );
}

/**
 * Translates Messages API stream events into Parley chunks:
 * `message_start` (input usage), `content_block_start` / `_delta` / `_stop`
 * for text (`text_delta`), thinking (`thinking_delta`s, then at the block's
 * stop its `signature_delta` as one `thinking_signature` chunk, which ends
 * the block in Parley: a block with only a signature, as
 * `display: "omitted"` streams it, is a block too), `redacted_thinking`
 * (whole in its start event: one `redacted_thinking` chunk with its `data`)
 * and `tool_use` blocks (`input_json_delta` fragments), `message_delta`
 * (stop reason, output usage) and `message_stop`. Blocks are tracked by
 * their `index`, so interleaved blocks are fine. Server-tool blocks have no
 * Parley chunk yet and are skipped with a warning. Input tokens include
 * cache writes and reads, as the API documents the total.
 */
export class AnthropicStreamTranslator implements StreamTranslator {
  readonly #logger: Logger;
  readonly #blocks = new Map<number, OpenBlock>();
  #inputTokens: number | undefined;
  #outputTokens = 0;
  #stopReason: string | undefined;
  #stopped = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  accept(value: unknown): ChatChunk[] {
    const event = readObject(value, 'event');
    const type = readString(event, 'type', 'event');
    switch (type) {
      case 'message_start':
        return this.#messageStart(event);
      case 'content_block_start':
        return this.#blockStart(event);
      case 'content_block_delta':
        return this.#blockDelta(event);
      case 'content_block_stop':
        return this.#blockStop(event);
      case 'message_delta':
        return this.#messageDelta(event);
      case 'message_stop':
        this.#stopped = true;
        return [];
      default:
        // New event types may be added to the API; they carry nothing we map.
        return [];
    }
  }

  finish(): ChatChunk[] {
    if (!this.#stopped) throw incompleteStreamError('anthropic', 'no message_stop event');
    const out: ChatChunk[] = [];
    if (this.#inputTokens !== undefined) {
      out.push({ type: 'usage', inputTokens: this.#inputTokens, outputTokens: this.#outputTokens });
    }
    out.push({ type: 'finish', finishedReason: finishReasonOf(this.#stopReason ?? 'end_turn') });
    return out;
  }

  #messageStart(event: Record<string, unknown>): ChatChunk[] {
    const message = readObject(event['message'], 'event.message');
    const usage = readOptionalObject(message, 'usage', 'event.message');
    if (usage !== undefined) {
      this.#inputTokens = inputTokensOf(usage, 'event.message.usage');
      this.#outputTokens = readOptionalNumber(usage, 'output_tokens', 'event.message.usage') ?? 0;
    }
    return [];
  }

  #blockStart(event: Record<string, unknown>): ChatChunk[] {
    const index = readNumber(event, 'index', 'event');
    const block = readObject(event['content_block'], 'event.content_block');
    const kind = readString(block, 'type', 'event.content_block');
    const path = 'event.content_block';
    const out: ChatChunk[] = [];
    if (kind === 'text') {
      this.#blocks.set(index, { kind: 'text' });
      const text = readOptionalString(block, 'text', path) ?? '';
      if (text !== '') out.push({ type: 'text_delta', delta: text });
    } else if (kind === 'thinking') {
      const signature = readOptionalString(block, 'signature', path) ?? '';
      this.#blocks.set(index, { kind: 'thinking', signature });
      const thinking = readOptionalString(block, 'thinking', path) ?? '';
      if (thinking !== '') out.push({ type: 'thinking_delta', delta: thinking });
    } else if (kind === 'redacted_thinking') {
      // Whole in its start event; no delta follows. `data` goes back unchanged.
      this.#blocks.set(index, { kind: 'redacted' });
      out.push({ type: 'redacted_thinking', data: readString(block, 'data', path) });
    } else if (kind === 'tool_use') {
      const id = readString(block, 'id', path);
      const name = readString(block, 'name', path);
      this.#blocks.set(index, { kind: 'tool', id, initialInput: block['input'], sentInput: false });
      out.push({ type: 'tool_call_start', id, name });
    } else {
      this.#blocks.set(index, { kind: 'ignored' });
      this.#logger.warn('Skipping an Anthropic content block Parley cannot represent', { kind });
    }
    return out;
  }

  #block(event: Record<string, unknown>): OpenBlock {
    const index = readNumber(event, 'index', 'event');
    const block = this.#blocks.get(index);
    if (block === undefined) throw new ShapeError('event.index', `no open content block ${index}`);
    return block;
  }

  #blockDelta(event: Record<string, unknown>): ChatChunk[] {
    const block = this.#block(event);
    const delta = readObject(event['delta'], 'event.delta');
    const type = readString(delta, 'type', 'event.delta');
    const mismatch = (): ShapeError =>
      new ShapeError('event.delta.type', `${type} in a ${block.kind} block`);
    switch (type) {
      case 'text_delta': {
        if (block.kind !== 'text') throw mismatch();
        const text = readString(delta, 'text', 'event.delta');
        return text === '' ? [] : [{ type: 'text_delta', delta: text }];
      }
      case 'thinking_delta': {
        if (block.kind !== 'thinking') throw mismatch();
        const thinking = readString(delta, 'thinking', 'event.delta');
        return thinking === '' ? [] : [{ type: 'thinking_delta', delta: thinking }];
      }
      case 'signature_delta': {
        if (block.kind !== 'thinking') throw mismatch();
        // Kept until the block stops: the signature ends the block in Parley.
        block.signature = readString(delta, 'signature', 'event.delta');
        return [];
      }
      case 'input_json_delta': {
        if (block.kind === 'ignored') return [];
        if (block.kind !== 'tool') throw mismatch();
        const fragment = readString(delta, 'partial_json', 'event.delta');
        if (fragment === '') return [];
        block.sentInput = true;
        return [{ type: 'tool_call_delta', id: block.id, delta: fragment }];
      }
      default:
        // citations_delta and future delta types carry nothing we map.
        return [];
    }
  }

  #blockStop(event: Record<string, unknown>): ChatChunk[] {
    const block = this.#block(event);
    this.#blocks.delete(readNumber(event, 'index', 'event'));
    if (block.kind === 'thinking') {
      // A block with no signature (cut off by the token limit) has nothing the API would take back.
      return block.signature === ''
        ? []
        : [{ type: 'thinking_signature', signature: block.signature }];
    }
    if (block.kind !== 'tool') return [];
    const out: ChatChunk[] = [];
    if (!block.sentInput) {
      // A tool without arguments may stream no fragment at all; its input is the start's `input`.
      out.push({
        type: 'tool_call_delta',
        id: block.id,
        delta: JSON.stringify(block.initialInput ?? {}),
      });
    }
    out.push({ type: 'tool_call_end', id: block.id });
    return out;
  }

  #messageDelta(event: Record<string, unknown>): ChatChunk[] {
    const delta = readObject(event['delta'], 'event.delta');
    const stopReason = readOptionalString(delta, 'stop_reason', 'event.delta');
    if (stopReason !== undefined) this.#stopReason = stopReason;
    const usage = readOptionalObject(event, 'usage', 'event');
    if (usage !== undefined) {
      this.#outputTokens =
        readOptionalNumber(usage, 'output_tokens', 'event.usage') ?? this.#outputTokens;
      this.#inputTokens = inputTokensOf(usage, 'event.usage') ?? this.#inputTokens;
    }
    return [];
  }
}
