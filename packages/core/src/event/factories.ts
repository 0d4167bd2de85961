import { newId, nowIso } from '../util/ids.js';
import type { AgentEvent, AgentEventFields, AgentEventType } from './output-events.js';

/** Builds an output event of `type`, filling `id`, `createdAt` and `metadata`. */
export function makeEvent<T extends AgentEventType>(
  type: T,
  fields: AgentEventFields<T>,
): Extract<AgentEvent, { type: T }> {
  return { id: newId(), createdAt: nowIso(), metadata: {}, type, ...fields } as Extract<
    AgentEvent,
    { type: T }
  >;
}

/** The factory of one event type: its fields in, a stamped event out. */
type EventFactory<T extends AgentEventType> = (
  fields: AgentEventFields<T>,
) => Extract<AgentEvent, { type: T }>;

function factoryOf<T extends AgentEventType>(type: T): EventFactory<T> {
  return (fields) => makeEvent(type, fields);
}

// One factory per output event type, named after it in camelCase (API.md,
// "Events"). Each fills `id`, `createdAt` and `metadata` (`{}` unless given),
// so emitters and tests write only the fields that mean something.

/** Builds `REPLY_START`: a reply began (once per reply, not again on resume). */
export const replyStartEvent = factoryOf('REPLY_START');
/** Builds `REPLY_END`: a reply finished, with its `finishedReason` (and `error` when it failed). */
export const replyEndEvent = factoryOf('REPLY_END');
/** Builds `MODEL_CALL_START`: the model is being called. */
export const modelCallStartEvent = factoryOf('MODEL_CALL_START');
/** Builds `MODEL_CALL_END`: the model call finished, with token usage. */
export const modelCallEndEvent = factoryOf('MODEL_CALL_END');
/** Builds `TEXT_BLOCK_START`: a text block of the reply opened. */
export const textBlockStartEvent = factoryOf('TEXT_BLOCK_START');
/** Builds `TEXT_BLOCK_DELTA`: more text for an open text block. */
export const textBlockDeltaEvent = factoryOf('TEXT_BLOCK_DELTA');
/** Builds `TEXT_BLOCK_END`: a text block closed. */
export const textBlockEndEvent = factoryOf('TEXT_BLOCK_END');
/** Builds `THINKING_BLOCK_START`: a thinking block opened. */
export const thinkingBlockStartEvent = factoryOf('THINKING_BLOCK_START');
/** Builds `THINKING_BLOCK_DELTA`: more reasoning for an open thinking block. */
export const thinkingBlockDeltaEvent = factoryOf('THINKING_BLOCK_DELTA');
/** Builds `THINKING_BLOCK_END`: a thinking block closed. */
export const thinkingBlockEndEvent = factoryOf('THINKING_BLOCK_END');
/** Builds `DATA_BLOCK_START`: a data block (image, file) of `mediaType` opened. */
export const dataBlockStartEvent = factoryOf('DATA_BLOCK_START');
/** Builds `DATA_BLOCK_DELTA`: base64 `data` or a `url` for an open data block. */
export const dataBlockDeltaEvent = factoryOf('DATA_BLOCK_DELTA');
/** Builds `DATA_BLOCK_END`: a data block closed. */
export const dataBlockEndEvent = factoryOf('DATA_BLOCK_END');
/** Builds `HINT_BLOCK`: a whole hint block (hints are not streamed). */
export const hintBlockEvent = factoryOf('HINT_BLOCK');
/** Builds `TOOL_CALL_START`: the model began a tool call. */
export const toolCallStartEvent = factoryOf('TOOL_CALL_START');
/** Builds `TOOL_CALL_DELTA`: more raw JSON input of a tool call. */
export const toolCallDeltaEvent = factoryOf('TOOL_CALL_DELTA');
/** Builds `TOOL_CALL_END`: the model finished writing a tool call. */
export const toolCallEndEvent = factoryOf('TOOL_CALL_END');
/** Builds `TOOL_RESULT_START`: a tool call's result begins (allowed, denied or interrupted). */
export const toolResultStartEvent = factoryOf('TOOL_RESULT_START');
/** Builds `TOOL_RESULT_TEXT_DELTA`: text output of a tool call. */
export const toolResultTextDeltaEvent = factoryOf('TOOL_RESULT_TEXT_DELTA');
/** Builds `TOOL_RESULT_DATA_DELTA`: data output (base64 `data` or a `url`) of a tool call. */
export const toolResultDataDeltaEvent = factoryOf('TOOL_RESULT_DATA_DELTA');
/** Builds `TOOL_RESULT_END`: a tool call finished, with its state and the result's metadata. */
export const toolResultEndEvent = factoryOf('TOOL_RESULT_END');
/** Builds `EXCEED_MAX_ITERS`: the reply hit `maxIters`. */
export const exceedMaxItersEvent = factoryOf('EXCEED_MAX_ITERS');
/** Builds `REQUIRE_USER_CONFIRM`: the reply parks until the user confirms or denies these calls. */
export const requireUserConfirmEvent = factoryOf('REQUIRE_USER_CONFIRM');
/** Builds `REQUIRE_EXTERNAL_EXECUTION`: the reply parks until these calls' results come from outside. */
export const requireExternalExecutionEvent = factoryOf('REQUIRE_EXTERNAL_EXECUTION');
