import type {
  FinishedReason,
  ToolCallBlock,
  ToolResultState,
  HintBlock,
} from '../message/index.js';

/** Fields every event has. */
export type EventBase = { id: string; createdAt: string; metadata: Record<string, unknown> };

type Out<T extends string, Fields> = EventBase & { type: T; replyId: string } & Fields;

/** The first event of a reply: which session, and who answers. */
export type ReplyStartEvent = Out<
  'REPLY_START',
  { sessionId: string; name: string; role: 'assistant' }
>;
/** The last event of a reply, with why it finished (and the error, if one ended it). */
export type ReplyEndEvent = Out<
  'REPLY_END',
  { sessionId: string; finishedReason: FinishedReason; error?: { type: string; message: string } }
>;
/** A call to the model begins. */
export type ModelCallStartEvent = Out<'MODEL_CALL_START', { modelName: string }>;
/** A call to the model ended, with its token usage and the model's finish reason. */
export type ModelCallEndEvent = Out<
  'MODEL_CALL_END',
  { inputTokens: number; outputTokens: number; finishedReason: string }
>;
/** A text block of the reply opens. */
export type TextBlockStartEvent = Out<'TEXT_BLOCK_START', { blockId: string }>;
/** More text for the open text block `blockId`. */
export type TextBlockDeltaEvent = Out<'TEXT_BLOCK_DELTA', { blockId: string; delta: string }>;
/** The text block `blockId` is complete. */
export type TextBlockEndEvent = Out<'TEXT_BLOCK_END', { blockId: string }>;
/**
 * A block of the model's thinking opens. `redacted: true` marks a redacted
 * block: no delta follows, and people are shown "reasoning (redacted)".
 */
export type ThinkingBlockStartEvent = Out<
  'THINKING_BLOCK_START',
  { blockId: string; redacted?: true }
>;
/** More thinking for the open thinking block `blockId`. */
export type ThinkingBlockDeltaEvent = Out<
  'THINKING_BLOCK_DELTA',
  { blockId: string; delta: string }
>;
/** The thinking block `blockId` is complete. */
export type ThinkingBlockEndEvent = Out<'THINKING_BLOCK_END', { blockId: string }>;
/** A data block (an image, a file: `mediaType`) opens. */
export type DataBlockStartEvent = Out<'DATA_BLOCK_START', { blockId: string; mediaType: string }>;
/** Data for the open data block, inline (`data`, base64) or by `url`. */
export type DataBlockDeltaEvent = Out<
  'DATA_BLOCK_DELTA',
  { blockId: string; mediaType: string; data?: string; url?: string }
>;
/** The data block `blockId` is complete. */
export type DataBlockEndEvent = Out<'DATA_BLOCK_END', { blockId: string }>;
/** A hint block (out-of-band guidance for the model, from the runtime), whole in one event. */
export type HintBlockEvent = Out<'HINT_BLOCK', { blockId: string; hint: HintBlock['hint'] }>;
/** The model begins a tool call. */
export type ToolCallStartEvent = Out<
  'TOOL_CALL_START',
  { toolCallId: string; toolCallName: string }
>;
/** More of a tool call's input (JSON text, streamed). */
export type ToolCallDeltaEvent = Out<'TOOL_CALL_DELTA', { toolCallId: string; delta: string }>;
/** A tool call's input is complete. */
export type ToolCallEndEvent = Out<'TOOL_CALL_END', { toolCallId: string }>;
/** A tool call's result begins (the tool runs). */
export type ToolResultStartEvent = Out<
  'TOOL_RESULT_START',
  { toolCallId: string; toolCallName: string }
>;
/** Text of a tool call's result. */
export type ToolResultTextDeltaEvent = Out<
  'TOOL_RESULT_TEXT_DELTA',
  { toolCallId: string; delta: string }
>;
/** Data of a tool call's result, inline (`data`, base64) or by `url`. */
export type ToolResultDataDeltaEvent = Out<
  'TOOL_RESULT_DATA_DELTA',
  { toolCallId: string; mediaType: string; data?: string; url?: string }
>;
/** A tool call's result is complete, with its state (success, error, denied, …). */
export type ToolResultEndEvent = Out<
  'TOOL_RESULT_END',
  { toolCallId: string; state: ToolResultState; metadata: Record<string, unknown> }
>;
/** The reply stopped because it reached the agent's `maxIters` model calls. */
export type ExceedMaxItersEvent = Out<'EXCEED_MAX_ITERS', { name: string }>;
/** The reply parks: these tool calls wait for a person's yes or no (answer with a `USER_CONFIRM_RESULT` event). */
export type RequireUserConfirmEvent = Out<'REQUIRE_USER_CONFIRM', { toolCalls: ToolCallBlock[] }>;
/** The reply parks: these tool calls run outside the agent (answer with an `EXTERNAL_EXECUTION_RESULT` event). */
export type RequireExternalExecutionEvent = Out<
  'REQUIRE_EXTERNAL_EXECUTION',
  { toolCalls: ToolCallBlock[] }
>;

/** Everything `replyStream` yields. Discriminated on `type`. */
export type AgentEvent =
  | ReplyStartEvent
  | ReplyEndEvent
  | ModelCallStartEvent
  | ModelCallEndEvent
  | TextBlockStartEvent
  | TextBlockDeltaEvent
  | TextBlockEndEvent
  | ThinkingBlockStartEvent
  | ThinkingBlockDeltaEvent
  | ThinkingBlockEndEvent
  | DataBlockStartEvent
  | DataBlockDeltaEvent
  | DataBlockEndEvent
  | HintBlockEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | ToolResultStartEvent
  | ToolResultTextDeltaEvent
  | ToolResultDataDeltaEvent
  | ToolResultEndEvent
  | ExceedMaxItersEvent
  | RequireUserConfirmEvent
  | RequireExternalExecutionEvent;

/** The `type` of every output event. */
export type AgentEventType = AgentEvent['type'];

/** The fields of an output event of type `T`, without the ones a factory fills. */
export type AgentEventFields<T extends AgentEventType> = Omit<
  Extract<AgentEvent, { type: T }>,
  'id' | 'createdAt' | 'metadata' | 'type'
> & { metadata?: Record<string, unknown> };
