import type { TextBlock, ThinkingBlock, ToolCallBlock } from '../message/index.js';
import type { ChatChunk } from '../model/index.js';
import type { AgentEvent } from '../event/index.js';
import { ModelError, assertNever } from '../errors/index.js';
import { newId } from '../util/ids.js';
import type { ReplyRun } from './reply-run.js';

type OpenBlock = { kind: 'text'; block: TextBlock } | { kind: 'thinking'; block: ThinkingBlock };

/**
 * Builds one model turn from its chunks: appends text, thinking, data and
 * tool call blocks to the reply message, and pushes the matching events
 * into the buffer it is given (the caller yields them).
 */
export class TurnAssembler {
  inputTokens = 0;
  outputTokens = 0;
  finishedReason = 'stop';
  /** The turn's tool calls by id, in the order they started. */
  readonly calls = new Map<string, ToolCallBlock>();
  private readonly ended = new Set<string>();
  private open: OpenBlock | undefined;
  /** The id of the turn's last block: where the output stopped. */
  private lastBlock: string | undefined;

  constructor(private readonly run: ReplyRun) {}

  /** Handles one chunk; its events go to `out`. */
  handle(chunk: ChatChunk, out: AgentEvent[]): void {
    const run = this.run;
    switch (chunk.type) {
      case 'text_delta':
      case 'thinking_delta':
        this.delta(chunk.type === 'text_delta' ? 'text' : 'thinking', chunk.delta, out);
        return;
      case 'thinking_signature': {
        // The signature ends its block; with no thinking block open, the
        // block had no text (`display: "omitted"`) and is one of its own.
        if (this.open?.kind !== 'thinking') this.openThinking(out);
        if (this.open?.kind === 'thinking') this.open.block.signature = chunk.signature;
        this.close(out);
        return;
      }
      case 'redacted_thinking': {
        this.close(out);
        const blockId = newId();
        run.append({ type: 'thinking', thinking: '', id: blockId, redactedData: chunk.data });
        this.lastBlock = blockId;
        out.push(run.event('THINKING_BLOCK_START', { blockId, redacted: true }));
        out.push(run.event('THINKING_BLOCK_END', { blockId }));
        return;
      }
      case 'data': {
        this.close(out);
        const blockId = newId();
        run.append({ type: 'data', id: blockId, source: chunk.source });
        this.lastBlock = blockId;
        const mediaType = chunk.source.mediaType;
        out.push(run.event('DATA_BLOCK_START', { blockId, mediaType }));
        out.push(
          chunk.source.type === 'base64'
            ? run.event('DATA_BLOCK_DELTA', { blockId, mediaType, data: chunk.source.data })
            : run.event('DATA_BLOCK_DELTA', { blockId, mediaType, url: chunk.source.url }),
        );
        out.push(run.event('DATA_BLOCK_END', { blockId }));
        return;
      }
      case 'tool_call_start': {
        this.close(out);
        const id = chunk.id === '' ? newId() : chunk.id;
        if (this.calls.has(id) || run.hasCall(id)) {
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
        this.calls.set(id, block);
        run.append(block);
        this.lastBlock = id;
        out.push(run.event('TOOL_CALL_START', { toolCallId: id, toolCallName: chunk.name }));
        return;
      }
      case 'tool_call_delta': {
        if (!this.calls.has(chunk.id)) {
          throw new ModelError(`The model sent arguments for unknown tool call '${chunk.id}'.`);
        }
        const input = run.call(chunk.id).input + chunk.delta;
        this.calls.set(chunk.id, run.updateCall(chunk.id, { input }));
        out.push(run.event('TOOL_CALL_DELTA', { toolCallId: chunk.id, delta: chunk.delta }));
        return;
      }
      case 'tool_call_end':
        if (this.calls.has(chunk.id) && !this.ended.has(chunk.id)) {
          this.ended.add(chunk.id);
          out.push(run.event('TOOL_CALL_END', { toolCallId: chunk.id }));
        }
        return;
      case 'usage':
        this.inputTokens += chunk.inputTokens;
        this.outputTokens += chunk.outputTokens;
        return;
      case 'finish':
        this.finishedReason = chunk.finishedReason;
        return;
      default:
        assertNever(chunk, 'chat chunk');
    }
  }

  /**
   * Ends the turn: closes the open block and any tool call the model left
   * open. Returns the ids of the calls the token limit cut off: with finish
   * reason `length`, a call never ended, and the call the output stopped in
   * (the turn's last block), even when the provider closed it. None of them
   * is complete enough to offer or run.
   */
  finish(out: AgentEvent[]): string[] {
    this.close(out);
    const cut: string[] = [];
    for (const id of this.calls.keys()) {
      const ended = this.ended.has(id);
      if (!ended) out.push(this.run.event('TOOL_CALL_END', { toolCallId: id }));
      if (this.finishedReason === 'length' && (!ended || id === this.lastBlock)) cut.push(id);
    }
    return cut;
  }

  /**
   * After a failure: closes the open text or thinking block (its text is
   * kept) and drops the turn's tool calls (none is complete enough to run).
   */
  abandon(out: AgentEvent[]): void {
    this.close(out);
    for (const id of this.calls.keys()) {
      if (!this.ended.has(id)) out.push(this.run.event('TOOL_CALL_END', { toolCallId: id }));
    }
    this.run.removeCalls([...this.calls.keys()]);
  }

  private delta(kind: 'text' | 'thinking', delta: string, out: AgentEvent[]): void {
    const run = this.run;
    if (this.open?.kind !== kind) {
      if (kind === 'text') this.openText(out);
      else this.openThinking(out);
    }
    const open = this.open;
    if (open === undefined) return;
    const blockId = open.block.id ?? '';
    if (open.kind === 'text') {
      open.block.text += delta;
      out.push(run.event('TEXT_BLOCK_DELTA', { blockId, delta }));
    } else {
      open.block.thinking += delta;
      out.push(run.event('THINKING_BLOCK_DELTA', { blockId, delta }));
    }
  }

  private openText(out: AgentEvent[]): void {
    this.close(out);
    const blockId = newId();
    const block: TextBlock = { type: 'text', text: '', id: blockId };
    out.push(this.run.event('TEXT_BLOCK_START', { blockId }));
    this.run.append(block);
    this.open = { kind: 'text', block };
    this.lastBlock = blockId;
  }

  private openThinking(out: AgentEvent[]): void {
    this.close(out);
    const blockId = newId();
    const block: ThinkingBlock = { type: 'thinking', thinking: '', id: blockId };
    out.push(this.run.event('THINKING_BLOCK_START', { blockId }));
    this.run.append(block);
    this.open = { kind: 'thinking', block };
    this.lastBlock = blockId;
  }

  private close(out: AgentEvent[]): void {
    const open = this.open;
    if (open === undefined) return;
    const blockId = open.block.id ?? '';
    out.push(
      open.kind === 'text'
        ? this.run.event('TEXT_BLOCK_END', { blockId })
        : this.run.event('THINKING_BLOCK_END', { blockId }),
    );
    this.open = undefined;
  }
}
