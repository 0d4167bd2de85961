import type {
  FinishedReason,
  ToolCallBlock,
  ToolResultState,
  HintBlock,
} from '../message/index.js';

/** Fields every event has. */
export type EventBase = { id: string; createdAt: string; metadata: Record<string, unknown> };

type Out<T extends string, Fields> = EventBase & { type: T; replyId: string } & Fields;

export type ReplyStartEvent = Out<
  'REPLY_START',
  { sessionId: string; name: string; role: 'assistant' }
>;
export type ReplyEndEvent = Out<
  'REPLY_END',
  { sessionId: string; finishedReason: FinishedReason; error?: { type: string; message: string } }
>;
export type ModelCallStartEvent = Out<'MODEL_CALL_START', { modelName: string }>;
export type ModelCallEndEvent = Out<
  'MODEL_CALL_END',
  { inputTokens: number; outputTokens: number; finishedReason: string }
>;
export type TextBlockStartEvent = Out<'TEXT_BLOCK_START', { blockId: string }>;
export type TextBlockDeltaEvent = Out<'TEXT_BLOCK_DELTA', { blockId: string; delta: string }>;
export type TextBlockEndEvent = Out<'TEXT_BLOCK_END', { blockId: string }>;
export type ThinkingBlockStartEvent = Out<'THINKING_BLOCK_START', { blockId: string }>;
export type ThinkingBlockDeltaEvent = Out<
  'THINKING_BLOCK_DELTA',
  { blockId: string; delta: string }
>;
export type ThinkingBlockEndEvent = Out<'THINKING_BLOCK_END', { blockId: string }>;
export type DataBlockStartEvent = Out<'DATA_BLOCK_START', { blockId: string; mediaType: string }>;
export type DataBlockDeltaEvent = Out<
  'DATA_BLOCK_DELTA',
  { blockId: string; mediaType: string; data?: string; url?: string }
>;
export type DataBlockEndEvent = Out<'DATA_BLOCK_END', { blockId: string }>;
export type HintBlockEvent = Out<'HINT_BLOCK', { blockId: string; hint: HintBlock['hint'] }>;
export type ToolCallStartEvent = Out<
  'TOOL_CALL_START',
  { toolCallId: string; toolCallName: string }
>;
export type ToolCallDeltaEvent = Out<'TOOL_CALL_DELTA', { toolCallId: string; delta: string }>;
export type ToolCallEndEvent = Out<'TOOL_CALL_END', { toolCallId: string }>;
export type ToolResultStartEvent = Out<
  'TOOL_RESULT_START',
  { toolCallId: string; toolCallName: string }
>;
export type ToolResultTextDeltaEvent = Out<
  'TOOL_RESULT_TEXT_DELTA',
  { toolCallId: string; delta: string }
>;
export type ToolResultDataDeltaEvent = Out<
  'TOOL_RESULT_DATA_DELTA',
  { toolCallId: string; mediaType: string; data?: string; url?: string }
>;
export type ToolResultEndEvent = Out<
  'TOOL_RESULT_END',
  { toolCallId: string; state: ToolResultState; metadata: Record<string, unknown> }
>;
export type ExceedMaxItersEvent = Out<'EXCEED_MAX_ITERS', { name: string }>;
export type RequireUserConfirmEvent = Out<'REQUIRE_USER_CONFIRM', { toolCalls: ToolCallBlock[] }>;
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

export type AgentEventType = AgentEvent['type'];

/** The fields of an output event of type `T`, without the ones a factory fills. */
export type AgentEventFields<T extends AgentEventType> = Omit<
  Extract<AgentEvent, { type: T }>,
  'id' | 'createdAt' | 'metadata' | 'type'
> & { metadata?: Record<string, unknown> };
