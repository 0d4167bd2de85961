import { EventType } from '@ag-ui/core';
import type { AGUIEvent, TokenUsage } from '@ag-ui/core';
import { assertNever } from '@parley/core';
import type { AgentEvent, ToolResultState } from '@parley/core';

/** The name of the `CUSTOM` events that carry Parley events AG-UI has no event for. */
export const customEventName = (type: string): string => `parley.${type}`;

/** The id of the AG-UI tool message a Parley tool result becomes. */
export const toolMessageId = (toolCallId: string): string => `${toolCallId}:result`;

/** The id of the assistant message that carries tool calls made without any text before them. */
export const callsMessageId = (toolCallId: string): string => `${toolCallId}:message`;

/**
 * The id of the tool message a client sent as the result of its own tool's
 * call, kept in the result's metadata (`agui.messageId`): the client has
 * that message already, so it is not sent back as a `TOOL_CALL_RESULT`.
 */
export function clientMessageId(metadata: Record<string, unknown> | undefined): string | undefined {
  const agui = metadata?.['agui'];
  if (typeof agui !== 'object' || agui === null || !('messageId' in agui)) return undefined;
  return typeof agui.messageId === 'string' ? agui.messageId : undefined;
}

type OpenResult = { text: string; parts: number };

/**
 * Turns the Parley events of a run into AG-UI events, in order (HTTP.md,
 * "AG-UI"). Text and thinking blocks become text and reasoning messages
 * (the block id is the message id), tool calls keep their ids and name the
 * assistant message they belong to, each finished call gets one
 * `TOOL_CALL_RESULT`, model calls are steps and their token counts add up to
 * the run's `usage`; everything else goes out as `CUSTOM` named
 * `parley.<TYPE>` with the Parley event as its value. Deterministic: the
 * same events give the same AG-UI events, which is how a run is replayed.
 */
export class AguiEventMapper {
  /** The assistant message tool calls attach to: the last text block, or the first call's own. */
  private parent: string | undefined;
  private readonly openText = new Set<string>();
  private readonly openReasoning = new Set<string>();
  private readonly openCalls = new Set<string>();
  private readonly results = new Map<string, OpenResult>();
  private readonly steps: string[] = [];
  private readonly tokens = new Map<string, TokenUsage>();
  private model = '';
  private failure: { message: string; code: string } | undefined;
  private interrupted = false;

  /** The AG-UI events for one Parley event. */
  map(event: AgentEvent): AGUIEvent[] {
    switch (event.type) {
      case 'TEXT_BLOCK_START':
        this.parent = event.blockId;
        this.openText.add(event.blockId);
        return [
          { type: EventType.TEXT_MESSAGE_START, messageId: event.blockId, role: 'assistant' },
        ];
      case 'TEXT_BLOCK_DELTA':
        if (event.delta === '') return [];
        return [
          { type: EventType.TEXT_MESSAGE_CONTENT, messageId: event.blockId, delta: event.delta },
        ];
      case 'TEXT_BLOCK_END':
        this.openText.delete(event.blockId);
        return [{ type: EventType.TEXT_MESSAGE_END, messageId: event.blockId }];
      case 'THINKING_BLOCK_START':
        this.openReasoning.add(event.blockId);
        return [
          { type: EventType.REASONING_START, messageId: event.blockId },
          { type: EventType.REASONING_MESSAGE_START, messageId: event.blockId, role: 'reasoning' },
        ];
      case 'THINKING_BLOCK_DELTA':
        if (event.delta === '') return [];
        return [
          {
            type: EventType.REASONING_MESSAGE_CONTENT,
            messageId: event.blockId,
            delta: event.delta,
          },
        ];
      case 'THINKING_BLOCK_END':
        this.openReasoning.delete(event.blockId);
        return [
          { type: EventType.REASONING_MESSAGE_END, messageId: event.blockId },
          { type: EventType.REASONING_END, messageId: event.blockId },
        ];
      case 'TOOL_CALL_START': {
        this.parent ??= callsMessageId(event.toolCallId);
        this.openCalls.add(event.toolCallId);
        return [
          {
            type: EventType.TOOL_CALL_START,
            toolCallId: event.toolCallId,
            toolCallName: event.toolCallName,
            parentMessageId: this.parent,
          },
        ];
      }
      case 'TOOL_CALL_DELTA':
        return [
          { type: EventType.TOOL_CALL_ARGS, toolCallId: event.toolCallId, delta: event.delta },
        ];
      case 'TOOL_CALL_END':
        this.openCalls.delete(event.toolCallId);
        return [{ type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId }];
      case 'TOOL_RESULT_START':
        this.results.set(event.toolCallId, { text: '', parts: 0 });
        return [];
      case 'TOOL_RESULT_TEXT_DELTA':
        this.resultOf(event.toolCallId).text += event.delta;
        return [];
      case 'TOOL_RESULT_DATA_DELTA':
        this.resultOf(event.toolCallId).parts += 1;
        return [this.custom(event)];
      case 'TOOL_RESULT_END': {
        const result = this.toolResult(event.toolCallId, event.state);
        return clientMessageId(event.metadata) === undefined ? [result] : [];
      }
      case 'MODEL_CALL_START': {
        const stepName = `model:${event.modelName}`;
        this.model = event.modelName;
        this.steps.push(stepName);
        return [{ type: EventType.STEP_STARTED, stepName }];
      }
      case 'MODEL_CALL_END': {
        this.addUsage(event.inputTokens, event.outputTokens);
        const stepName = this.steps.pop() ?? `model:${this.model}`;
        return [{ type: EventType.STEP_FINISHED, stepName }];
      }
      case 'REPLY_END':
        if (event.finishedReason === 'error') {
          this.failure = {
            message: event.error?.message ?? 'The reply failed.',
            code: event.error?.type ?? 'error',
          };
        }
        this.interrupted = event.finishedReason === 'interrupted';
        return [this.custom(event)];
      case 'REPLY_START':
        this.interrupted = false;
        this.failure = undefined;
        return [this.custom(event)];
      case 'DATA_BLOCK_START':
      case 'DATA_BLOCK_DELTA':
      case 'DATA_BLOCK_END':
      case 'HINT_BLOCK':
      case 'EXCEED_MAX_ITERS':
      case 'REQUIRE_USER_CONFIRM':
      case 'REQUIRE_EXTERNAL_EXECUTION':
        return [this.custom(event)];
      default:
        return assertNever(event, 'Parley event');
    }
  }

  /**
   * Ends whatever the Parley events left open (a reply cancelled mid-stream
   * stops without its `*_END` events), so the run can finish well formed.
   */
  close(): AGUIEvent[] {
    const events: AGUIEvent[] = [];
    for (const messageId of this.openText) {
      events.push({ type: EventType.TEXT_MESSAGE_END, messageId });
    }
    for (const messageId of this.openReasoning) {
      events.push({ type: EventType.REASONING_MESSAGE_END, messageId });
      events.push({ type: EventType.REASONING_END, messageId });
    }
    for (const toolCallId of this.openCalls) {
      events.push({ type: EventType.TOOL_CALL_END, toolCallId });
    }
    for (const stepName of this.steps.reverse()) {
      events.push({ type: EventType.STEP_FINISHED, stepName });
    }
    this.openText.clear();
    this.openReasoning.clear();
    this.openCalls.clear();
    this.steps.length = 0;
    return events;
  }

  /** Token usage of the model calls seen, one entry per model. */
  usage(): TokenUsage[] {
    return [...this.tokens.values()];
  }

  /** How the last reply seen ended: with an error (its message and type), or not. */
  error(): { message: string; code: string } | undefined {
    return this.failure;
  }

  /** Whether the last reply seen ended as interrupted (every open call cancelled, or stopped). */
  endedInterrupted(): boolean {
    return this.interrupted;
  }

  private resultOf(toolCallId: string): OpenResult {
    let result = this.results.get(toolCallId);
    if (result === undefined) {
      result = { text: '', parts: 0 };
      this.results.set(toolCallId, result);
    }
    return result;
  }

  private toolResult(toolCallId: string, state: ToolResultState): AGUIEvent {
    const result = this.resultOf(toolCallId);
    this.results.delete(toolCallId);
    this.parent = undefined;
    return {
      type: EventType.TOOL_CALL_RESULT,
      messageId: toolMessageId(toolCallId),
      toolCallId,
      content: result.text,
      role: 'tool',
      metadata: { parley: { state } },
    };
  }

  private addUsage(inputTokens: number, outputTokens: number): void {
    const known = this.tokens.get(this.model) ?? {
      model: this.model,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    };
    const input = (known.inputTokens ?? 0) + inputTokens;
    const output = (known.outputTokens ?? 0) + outputTokens;
    this.tokens.set(this.model, {
      model: this.model,
      inputTokens: input,
      outputTokens: output,
      totalTokens: input + output,
    });
  }

  private custom(event: AgentEvent): AGUIEvent {
    return { type: EventType.CUSTOM, name: customEventName(event.type), value: event };
  }
}
