import type { ContentBlock, Msg, ToolCallBlock, ToolResultBlock } from '../message/index.js';
import type { ChatModel } from '../model/index.js';
import type { PermissionEngine } from '../permission/index.js';
import type { Logger, Toolkit } from '../tool/index.js';
import type { AgentEvent, AgentEventFields, AgentEventType } from '../event/index.js';
import { makeEvent } from '../event/index.js';
import type { AgentState, ReplyState } from '../state/index.js';
import { InvalidStateError } from '../errors/index.js';
import type { Checkpoint, CheckpointReason } from './options.js';
import type { Middleware, RunInfo } from './middleware.js';

/** What every step needs from the agent. */
export type RunDependencies = {
  agentName: string;
  systemPrompt: string;
  model: ChatModel;
  toolkit: Toolkit;
  engine: PermissionEngine;
  middlewares: readonly Middleware[];
  maxIters: number;
  logger: Logger;
  checkpoint: Checkpoint | undefined;
};

/**
 * One reply in progress: the live state, the reply message inside it, and
 * the helpers every step uses to change blocks and build events. It holds
 * no state of its own that a checkpoint would miss.
 */
export class ReplyRun {
  readonly deps: RunDependencies;
  readonly state: AgentState;
  readonly reply: ReplyState;
  readonly message: Msg & { content: ContentBlock[] };
  readonly signal: AbortSignal;
  private checkpointChain: Promise<void> = Promise.resolve();

  constructor(deps: RunDependencies, state: AgentState, signal: AbortSignal) {
    const reply = state.reply;
    const last = state.context.at(-1);
    if (reply === null || last === undefined || last.id !== reply.replyId) {
      throw new InvalidStateError('The state has no reply message for its reply in progress.', {
        sessionId: state.sessionId,
      });
    }
    if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content }];
    this.deps = deps;
    this.state = state;
    this.reply = reply;
    this.message = last as Msg & { content: ContentBlock[] };
    this.signal = signal;
  }

  get replyId(): string {
    return this.reply.replyId;
  }

  get info(): RunInfo {
    return {
      agentName: this.deps.agentName,
      sessionId: this.state.sessionId,
      replyId: this.replyId,
    };
  }

  /** An output event of this reply. */
  event<T extends AgentEventType>(
    type: T,
    fields: Omit<AgentEventFields<T>, 'replyId'>,
  ): Extract<AgentEvent, { type: T }> {
    return makeEvent(type, { ...fields, replyId: this.replyId } as AgentEventFields<T>);
  }

  /** The tool calls of the current model turn, in the model's order. */
  turnCalls(): ToolCallBlock[] {
    const calls: ToolCallBlock[] = [];
    const content = this.message.content;
    for (let i = this.reply.turnStart; i < content.length; i++) {
      const block = content[i];
      if (block?.type === 'tool_call') calls.push(block);
    }
    return calls;
  }

  /** Every tool call of the reply message that has no result yet. */
  openCalls(): ToolCallBlock[] {
    return this.message.content.filter(
      (block): block is ToolCallBlock => block.type === 'tool_call' && block.state !== 'finished',
    );
  }

  call(id: string): ToolCallBlock {
    const found = this.message.content.find(
      (block): block is ToolCallBlock => block.type === 'tool_call' && block.id === id,
    );
    if (found === undefined) {
      throw new InvalidStateError(`Tool call '${id}' is not in reply '${this.replyId}'.`, {
        sessionId: this.state.sessionId,
      });
    }
    return found;
  }

  /** Replaces a tool call block (blocks are never mutated in place: requests may hold them). */
  updateCall(id: string, patch: Partial<Omit<ToolCallBlock, 'type' | 'id'>>): ToolCallBlock {
    const content = this.message.content;
    const index = content.findIndex((block) => block.type === 'tool_call' && block.id === id);
    const current = content[index];
    if (current?.type !== 'tool_call') {
      throw new InvalidStateError(`Tool call '${id}' is not in reply '${this.replyId}'.`, {
        sessionId: this.state.sessionId,
      });
    }
    const next: ToolCallBlock = { ...current, ...patch };
    content[index] = next;
    return next;
  }

  append(block: ContentBlock): void {
    this.message.content.push(block);
  }

  /** Appends a result and marks its call finished and no longer executing. */
  finishCall(result: ToolResultBlock): void {
    this.append(result);
    this.updateCall(result.id, { state: 'finished' });
    this.markExecuting(result.id, false);
  }

  markExecuting(id: string, executing: boolean): void {
    const list = this.reply.executing;
    const at = list.indexOf(id);
    if (executing && at < 0) list.push(id);
    if (!executing && at >= 0) list.splice(at, 1);
  }

  /** Whether a TOOL_RESULT_START was already emitted for this call. */
  resultStarted(call: ToolCallBlock): boolean {
    return call.state === 'submitted' || this.reply.executing.includes(call.id);
  }

  /** Persists through the agent's checkpoint hook; calls are serialized. */
  checkpoint(reason: CheckpointReason): Promise<void> {
    const hook = this.deps.checkpoint;
    if (hook === undefined) return Promise.resolve();
    const next = this.checkpointChain.then(() => hook(this.state, reason));
    this.checkpointChain = next.catch(() => undefined);
    return next;
  }
}
