import { z } from 'zod';
import {
  finishedReasonSchema,
  hintContentSchema,
  metadataSchema,
  permissionRuleSchema,
  toolCallBlockSchema,
  toolResultBlockSchema,
  toolResultStateSchema,
} from '../message/index.js';
import type { ConfirmResult, InputEvent } from './input-events.js';
import type { AgentEvent, AgentEventType } from './output-events.js';

// Every event object is strict: the event types are closed, and an unknown key
// is most often a typo (`replyID`) that would otherwise be dropped silently.

/** Builds the schema of one output event: the common fields, the `type` tag and its own fields. */
function outputEvent<T extends AgentEventType, Shape extends z.ZodRawShape>(type: T, shape: Shape) {
  return z.strictObject({
    id: z.string(),
    createdAt: z.string(),
    metadata: metadataSchema,
    type: z.literal(type),
    replyId: z.string(),
    ...shape,
  });
}

const blockId = { blockId: z.string() };
const toolCallId = { toolCallId: z.string() };
const delta = { delta: z.string() };
const dataDelta = {
  mediaType: z.string(),
  data: z.string().exactOptional(),
  url: z.string().exactOptional(),
};
const toolCalls = { toolCalls: z.array(toolCallBlockSchema) };

const outputEventObjects = {
  REPLY_START: outputEvent('REPLY_START', {
    sessionId: z.string(),
    name: z.string(),
    role: z.literal('assistant'),
  }),
  REPLY_END: outputEvent('REPLY_END', {
    sessionId: z.string(),
    finishedReason: finishedReasonSchema,
    error: z.strictObject({ type: z.string(), message: z.string() }).exactOptional(),
  }),
  MODEL_CALL_START: outputEvent('MODEL_CALL_START', { modelName: z.string() }),
  MODEL_CALL_END: outputEvent('MODEL_CALL_END', {
    inputTokens: z.number(),
    outputTokens: z.number(),
    finishedReason: z.string(),
  }),
  TEXT_BLOCK_START: outputEvent('TEXT_BLOCK_START', blockId),
  TEXT_BLOCK_DELTA: outputEvent('TEXT_BLOCK_DELTA', { ...blockId, ...delta }),
  TEXT_BLOCK_END: outputEvent('TEXT_BLOCK_END', blockId),
  THINKING_BLOCK_START: outputEvent('THINKING_BLOCK_START', {
    ...blockId,
    redacted: z.literal(true).exactOptional(),
  }),
  THINKING_BLOCK_DELTA: outputEvent('THINKING_BLOCK_DELTA', { ...blockId, ...delta }),
  THINKING_BLOCK_END: outputEvent('THINKING_BLOCK_END', blockId),
  DATA_BLOCK_START: outputEvent('DATA_BLOCK_START', { ...blockId, mediaType: z.string() }),
  DATA_BLOCK_DELTA: outputEvent('DATA_BLOCK_DELTA', { ...blockId, ...dataDelta }),
  DATA_BLOCK_END: outputEvent('DATA_BLOCK_END', blockId),
  HINT_BLOCK: outputEvent('HINT_BLOCK', { ...blockId, hint: hintContentSchema }),
  TOOL_CALL_START: outputEvent('TOOL_CALL_START', { ...toolCallId, toolCallName: z.string() }),
  TOOL_CALL_DELTA: outputEvent('TOOL_CALL_DELTA', { ...toolCallId, ...delta }),
  TOOL_CALL_END: outputEvent('TOOL_CALL_END', toolCallId),
  TOOL_RESULT_START: outputEvent('TOOL_RESULT_START', { ...toolCallId, toolCallName: z.string() }),
  TOOL_RESULT_TEXT_DELTA: outputEvent('TOOL_RESULT_TEXT_DELTA', { ...toolCallId, ...delta }),
  TOOL_RESULT_DATA_DELTA: outputEvent('TOOL_RESULT_DATA_DELTA', { ...toolCallId, ...dataDelta }),
  TOOL_RESULT_END: outputEvent('TOOL_RESULT_END', {
    ...toolCallId,
    state: toolResultStateSchema,
    metadata: metadataSchema,
  }),
  EXCEED_MAX_ITERS: outputEvent('EXCEED_MAX_ITERS', { name: z.string() }),
  REQUIRE_USER_CONFIRM: outputEvent('REQUIRE_USER_CONFIRM', toolCalls),
  REQUIRE_EXTERNAL_EXECUTION: outputEvent('REQUIRE_EXTERNAL_EXECUTION', toolCalls),
};

const inputBase = {
  id: z.string().exactOptional(),
  createdAt: z.string().exactOptional(),
  metadata: metadataSchema.exactOptional(),
};

const confirmResult = z.strictObject({
  confirmed: z.boolean(),
  toolCall: toolCallBlockSchema,
  rules: z.array(permissionRuleSchema).nullable().exactOptional(),
  reason: z.string().exactOptional(),
});

const inputEventObjects = {
  USER_CONFIRM_RESULT: z.strictObject({
    ...inputBase,
    type: z.literal('USER_CONFIRM_RESULT'),
    replyId: z.string(),
    confirmResults: z.array(confirmResult),
  }),
  EXTERNAL_EXECUTION_RESULT: z.strictObject({
    ...inputBase,
    type: z.literal('EXTERNAL_EXECUTION_RESULT'),
    replyId: z.string(),
    executionResults: z.array(toolResultBlockSchema),
  }),
  USER_INTERRUPT: z.strictObject({
    ...inputBase,
    type: z.literal('USER_INTERRUPT'),
    replyId: z.string(),
  }),
};

/** The type of one output event (`Extract` on the union). */
type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
/** The type of one input event. */
type InputEventOf<T extends InputEvent['type']> = Extract<InputEvent, { type: T }>;

/**
 * One schema per output event type, keyed by `type`. A decoder looks the
 * schema up by the event's tag, so a bad event is reported at its own field
 * rather than as "matches no member of the union".
 */
export const agentEventSchemas: { readonly [T in AgentEventType]: z.ZodType<AgentEventOf<T>> } =
  outputEventObjects;

/** One schema per input event type, keyed by `type`. `id`, `createdAt` and `metadata` may be absent. */
export const inputEventSchemas: {
  readonly [T in InputEvent['type']]: z.ZodType<InputEventOf<T>>;
} = inputEventObjects;

/** Validates one `ConfirmResult` of a `USER_CONFIRM_RESULT` event. */
export const confirmResultSchema: z.ZodType<ConfirmResult> = confirmResult;

/** Every output event `type`, in the order of the `AgentEvent` union. */
export const agentEventTypes: readonly AgentEventType[] =
  Object.keys(outputEventObjects).filter(isAgentEventType);

/** Every input event `type`. */
export const inputEventTypes: readonly InputEvent['type'][] =
  Object.keys(inputEventObjects).filter(isInputEventType);

/** True when `value` is the `type` of an output event. */
export function isAgentEventType(value: unknown): value is AgentEventType {
  return typeof value === 'string' && Object.hasOwn(outputEventObjects, value);
}

/** True when `value` is the `type` of an input event. */
export function isInputEventType(value: unknown): value is InputEvent['type'] {
  return typeof value === 'string' && Object.hasOwn(inputEventObjects, value);
}

const outputs = outputEventObjects;

/** Validates any output event (a discriminated union on `type`), e.g. inside a larger schema. */
export const agentEventSchema: z.ZodType<AgentEvent> = z.discriminatedUnion('type', [
  outputs.REPLY_START,
  outputs.REPLY_END,
  outputs.MODEL_CALL_START,
  outputs.MODEL_CALL_END,
  outputs.TEXT_BLOCK_START,
  outputs.TEXT_BLOCK_DELTA,
  outputs.TEXT_BLOCK_END,
  outputs.THINKING_BLOCK_START,
  outputs.THINKING_BLOCK_DELTA,
  outputs.THINKING_BLOCK_END,
  outputs.DATA_BLOCK_START,
  outputs.DATA_BLOCK_DELTA,
  outputs.DATA_BLOCK_END,
  outputs.HINT_BLOCK,
  outputs.TOOL_CALL_START,
  outputs.TOOL_CALL_DELTA,
  outputs.TOOL_CALL_END,
  outputs.TOOL_RESULT_START,
  outputs.TOOL_RESULT_TEXT_DELTA,
  outputs.TOOL_RESULT_DATA_DELTA,
  outputs.TOOL_RESULT_END,
  outputs.EXCEED_MAX_ITERS,
  outputs.REQUIRE_USER_CONFIRM,
  outputs.REQUIRE_EXTERNAL_EXECUTION,
]);

/** Validates any input event (a discriminated union on `type`), e.g. a request body schema. */
export const inputEventSchema: z.ZodType<InputEvent> = z.discriminatedUnion('type', [
  inputEventObjects.USER_CONFIRM_RESULT,
  inputEventObjects.EXTERNAL_EXECUTION_RESULT,
  inputEventObjects.USER_INTERRUPT,
]);

// Compile-time check: each schema infers exactly the declared event type.
type Flatten<T> = T extends (infer E)[]
  ? Flatten<E>[]
  : T extends object
    ? { [K in keyof T]: Flatten<T[K]> }
    : T;
type Same<A, B> =
  (<G>() => G extends Flatten<A> ? 1 : 2) extends <G>() => G extends Flatten<B> ? 1 : 2
    ? true
    : false;
type Mismatched<Objects, Union extends { type: string }> = {
  [T in keyof Objects & Union['type']]: Objects[T] extends z.ZodType
    ? Same<z.infer<Objects[T]>, Extract<Union, { type: T }>> extends true
      ? never
      : T
    : T;
}[keyof Objects & Union['type']];
type Expect<T extends true> = T;
type _EventSchemasMatchTypes = [
  Expect<Same<Mismatched<typeof outputEventObjects, AgentEvent>, never>>,
  Expect<Same<Mismatched<typeof inputEventObjects, InputEvent>, never>>,
  Expect<Same<keyof typeof outputEventObjects, AgentEventType>>,
  Expect<Same<keyof typeof inputEventObjects, InputEvent['type']>>,
  Expect<Same<z.infer<typeof confirmResult>, ConfirmResult>>,
];
