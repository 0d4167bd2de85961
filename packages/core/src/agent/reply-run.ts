import type { ContentBlock, Msg, ToolCallBlock, ToolResultBlock } from '../message/index.js';
import type { ChatChunk, ChatModel } from '../model/index.js';
import type { PermissionEngine } from '../permission/index.js';
import { forgetPermissionAsk } from '../permission/asks.js';
import type { Logger, ToolAnswer, Toolkit } from '../tool/index.js';
import type { AgentEvent, AgentEventFields, AgentEventType } from '../event/index.js';
import { makeEvent } from '../event/index.js';
import type { AgentState, ReplyState } from '../state/index.js';
import { InvalidStateError } from '../errors/index.js';
import { newId } from '../util/ids.js';
import type { Checkpoint, CheckpointReason } from './options.js';
import type { ReplyMetrics, ReplyTrace, TraceSettings } from '../telemetry/index.js';
import type { Middleware, ModelCallContext, RunInfo } from './middleware.js';
import type { Resolved } from './permission-step.js';

/** What every step needs from the agent. */
export type RunDependencies = {
  agentName: string;
  systemPrompt: string;
  model: ChatModel;
  toolkit: Toolkit;
  engine: PermissionEngine;
  /** The model call wrapped in the `onModelCall` middlewares (composed once). */
  callModel: (context: ModelCallContext) => AsyncIterable<ChatChunk>;
  permissionHooks: readonly NonNullable<Middleware['onCheckPermission']>[];
  actingHooks: readonly NonNullable<Middleware['onActing']>[];
  /** Whether the hooks get copies of the call and input (some may change them). */
  copyFor: { permission: boolean; acting: boolean };
  maxIters: number;
  logger: Logger;
  /** The checkpoint option as `withParkDeadline` wraps it: an async function (it rejects, never throws). */
  checkpoint: Checkpoint | undefined;
  /** The tracer and content setting of the run's spans. */
  trace: TraceSettings;
  /** The reply metrics (no-ops without an SDK). */
  metrics: ReplyMetrics;
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
  /** Who is running, as every middleware is told (fixed for the run). */
  readonly info: RunInfo;
  /** The spans of this run (none for a reply closed without a run). */
  readonly trace: ReplyTrace | undefined;
  /** Checkpoints called and not settled yet; while there are some, the next one waits. */
  private checkpointsPending = 0;
  private checkpointChain: Promise<void> = Promise.resolve();
  private readonly checkpointSettled = (): void => {
    this.checkpointsPending -= 1;
  };
  /** Tool lookups and parsed inputs, by tool name, then raw input (parsing is pure). */
  readonly resolved = new Map<string, Map<string, Resolved>>();
  /** Where each tool call sits in the reply message (blocks are appended or replaced, never moved). */
  private readonly callIndex = new Map<string, number>();

  constructor(deps: RunDependencies, state: AgentState, signal: AbortSignal, trace?: ReplyTrace) {
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
    this.trace = trace;
    this.info = { agentName: deps.agentName, sessionId: state.sessionId, replyId: reply.replyId };
    this.reindex();
  }

  private reindex(): void {
    this.callIndex.clear();
    this.message.content.forEach((block, index) => {
      if (block.type === 'tool_call') this.callIndex.set(block.id, index);
    });
  }

  /** Whether the reply message has a tool call with this id. */
  hasCall(id: string): boolean {
    return this.callIndex.has(id);
  }

  /** Removes tool calls (those of a model turn that failed before it ended). */
  removeCalls(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const drop = new Set(ids);
    const kept = this.message.content.filter(
      (block) => block.type !== 'tool_call' || !drop.has(block.id),
    );
    this.message.content.splice(0, this.message.content.length, ...kept);
    this.reindex();
  }

  get replyId(): string {
    return this.reply.replyId;
  }

  /** An output event of this reply. */
  event<T extends AgentEventType>(
    type: T,
    fields: Omit<AgentEventFields<T>, 'replyId'>,
  ): Extract<AgentEvent, { type: T }> {
    const withReply = fields as AgentEventFields<T>;
    withReply.replyId = this.replyId;
    const event = makeEvent(type, withReply);
    this.trace?.observe(event, this.inputOf);
    return event;
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
    const found = this.message.content[this.callIndex.get(id) ?? -1];
    if (found?.type !== 'tool_call') {
      throw new InvalidStateError(`Tool call '${id}' is not in reply '${this.replyId}'.`, {
        sessionId: this.state.sessionId,
      });
    }
    return found;
  }

  /** Replaces a tool call block (blocks are never mutated in place: requests may hold them). */
  updateCall(id: string, patch: Partial<Omit<ToolCallBlock, 'type' | 'id'>>): ToolCallBlock {
    const next: ToolCallBlock = { ...this.call(id), ...patch };
    this.message.content[this.callIndex.get(id) ?? -1] = next;
    // Why a call asked is kept only while it asks.
    if (next.state !== 'asking') forgetPermissionAsk(this.message, id);
    return next;
  }

  append(block: ContentBlock): void {
    if (block.type === 'tool_call') this.callIndex.set(block.id, this.message.content.length);
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
    return (
      call.state === 'submitted' ||
      this.reply.executing.includes(call.id) ||
      (this.reply.raised?.some((raised) => raised.by === call.id) ?? false)
    );
  }

  /**
   * Adds the call a running tool raised (`tool_suspend`) as a submitted
   * external call, linked to the call that raised it.
   */
  raise(by: string, name: string, input: Record<string, unknown>): ToolCallBlock {
    const raised: ToolCallBlock = {
      type: 'tool_call',
      id: newId(),
      name,
      input: JSON.stringify(input),
      state: 'submitted',
      suggestedRules: [],
    };
    this.append(raised);
    (this.reply.raised ??= []).push({ id: raised.id, by });
    return raised;
  }

  /** The calls raised by `by` that have no result yet (it waits for them). */
  openRaisedBy(by: string): ToolCallBlock[] {
    const raised = this.reply.raised;
    if (raised === undefined) return [];
    return raised
      .filter((entry) => entry.by === by)
      .map((entry) => this.call(entry.id))
      .filter((call) => call.state !== 'finished');
  }

  /** The calls raised by `by` that have a result, with it, oldest first (the answers it waited for). */
  answersFor(by: string): ToolAnswer[] {
    const raised = this.reply.raised;
    if (raised === undefined) return [];
    const ids = new Set(raised.filter((entry) => entry.by === by).map((entry) => entry.id));
    const answers: ToolAnswer[] = [];
    for (const block of this.message.content) {
      if (block.type === 'tool_result' && ids.has(block.id)) {
        answers.push({ call: this.call(block.id), result: block });
      }
    }
    return answers;
  }

  /** A call's input as the model wrote it (content capture on tool spans). */
  private readonly inputOf = (id: string): string | undefined =>
    this.hasCall(id) ? this.call(id).input : undefined;

  /** Whether a checkpoint hook is set (without one, steps skip the await). */
  get persists(): boolean {
    return this.deps.checkpoint !== undefined;
  }

  /**
   * Persists through the agent's checkpoint hook. Calls are serialized: one
   * made while another is running waits for it, whatever its outcome.
   */
  checkpoint(reason: CheckpointReason): Promise<void> {
    const hook = this.deps.checkpoint;
    if (hook === undefined) return Promise.resolve();
    const next =
      this.checkpointsPending === 0
        ? hook(this.state, reason)
        : this.checkpointChain.then(() => hook(this.state, reason));
    this.checkpointsPending += 1;
    this.checkpointChain = next.then(this.checkpointSettled, this.checkpointSettled);
    return next;
  }
}
