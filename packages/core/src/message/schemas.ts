import { z } from 'zod';
import type {
  ContentBlock,
  DataBlock,
  HintBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolCallState,
  ToolResultBlock,
  ToolResultState,
} from './blocks.js';
import type { FinishedReason, Msg } from './msg.js';
import type { PermissionRule } from './permission-rule.js';

// The raw schemas are built first and checked against the declared types at
// compile time (bottom of the file); the exported ones are typed
// `z.ZodType<T>` so that whoever parses gets exactly the declared type.
// Objects are strict: these types are closed, and an unknown key in stored or
// received data is a typo or corruption worth reporting. Optional fields use
// `exactOptional` to mirror `exactOptionalPropertyTypes` (absent, never `undefined`).

// zod copies a record key by key and skips an own "__proto__" key (which
// JSON text can hold), so such a key is refused here rather than lost.
const metadata = z
  .unknown()
  .refine(
    (value) => typeof value !== 'object' || value === null || !Object.hasOwn(value, '__proto__'),
    { message: 'the key "__proto__" is not allowed', path: ['__proto__'] },
  )
  .pipe(z.record(z.string(), z.unknown()));

const permissionRule = z.strictObject({
  toolName: z.string(),
  ruleContent: z.string().nullable(),
  behavior: z.enum(['allow', 'deny', 'ask']),
  source: z.string(),
});

const textBlock = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  id: z.string().exactOptional(),
});

const dataSource = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('base64'), data: z.string(), mediaType: z.string() }),
  z.strictObject({ type: z.literal('url'), url: z.string(), mediaType: z.string() }),
]);

const dataBlock = z.strictObject({
  type: z.literal('data'),
  id: z.string().exactOptional(),
  name: z.string().exactOptional(),
  source: dataSource,
});

const textOrDataBlocks = z.array(z.discriminatedUnion('type', [textBlock, dataBlock]));

const thinkingBlock = z.strictObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  id: z.string().exactOptional(),
  signature: z.string().exactOptional(),
  redactedData: z.string().exactOptional(),
});

const hintBlock = z.strictObject({
  type: z.literal('hint'),
  hint: z.union([z.string(), textOrDataBlocks]),
  id: z.string().exactOptional(),
  source: z.string().exactOptional(),
});

const toolCallState = z.enum(['pending', 'asking', 'allowed', 'submitted', 'finished']);

const toolCallBlock = z.strictObject({
  type: z.literal('tool_call'),
  id: z.string(),
  name: z.string(),
  input: z.string(),
  state: toolCallState,
  suggestedRules: z.array(permissionRule),
});

const toolResultState = z.enum(['success', 'error', 'interrupted', 'denied', 'running']);

const toolResultBlock = z.strictObject({
  type: z.literal('tool_result'),
  id: z.string(),
  name: z.string(),
  output: z.union([z.string(), textOrDataBlocks]),
  state: toolResultState,
  metadata: metadata.exactOptional(),
});

const contentBlock = z.discriminatedUnion('type', [
  textBlock,
  dataBlock,
  thinkingBlock,
  hintBlock,
  toolCallBlock,
  toolResultBlock,
]);

const finishedReason = z.enum(['completed', 'interrupted', 'exceed_max_iters', 'error']);

const message = z.strictObject({
  id: z.string(),
  name: z.string(),
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlock)]),
  finishedReason: finishedReason.nullable().exactOptional(),
  metadata: metadata.exactOptional(),
  createdAt: z.string().exactOptional(),
});

/** A free-form JSON object (`metadata` fields): any keys, any values, not an array. */
export const metadataSchema: z.ZodType<Record<string, unknown>> = metadata;

/** Validates a `PermissionRule` (carried by tool calls and confirm results, stored in state). */
export const permissionRuleSchema: z.ZodType<PermissionRule> = permissionRule;

/** Validates a `TextBlock`. */
export const textBlockSchema: z.ZodType<TextBlock> = textBlock;

/** Validates a `DataBlock` (base64 or URL source). */
export const dataBlockSchema: z.ZodType<DataBlock> = dataBlock;

/** Validates a `ThinkingBlock`. */
export const thinkingBlockSchema: z.ZodType<ThinkingBlock> = thinkingBlock;

/** Validates a `HintBlock`. */
export const hintBlockSchema: z.ZodType<HintBlock> = hintBlock;

/** Validates the content of a hint: text, or text and data blocks (shared with `HINT_BLOCK` events). */
export const hintContentSchema: z.ZodType<HintBlock['hint']> = hintBlock.shape.hint;

/** Validates a `ToolCallState`. */
export const toolCallStateSchema: z.ZodType<ToolCallState> = toolCallState;

/** Validates a `ToolCallBlock` (e.g. one given back in a confirm result). */
export const toolCallBlockSchema: z.ZodType<ToolCallBlock> = toolCallBlock;

/** Validates a `ToolResultState`. */
export const toolResultStateSchema: z.ZodType<ToolResultState> = toolResultState;

/** Validates a `ToolResultBlock` (e.g. an externally executed result). */
export const toolResultBlockSchema: z.ZodType<ToolResultBlock> = toolResultBlock;

/** Validates any `ContentBlock`, discriminated on `type`. */
export const contentBlockSchema: z.ZodType<ContentBlock> = contentBlock;

/** Validates a `FinishedReason`. */
export const finishedReasonSchema: z.ZodType<FinishedReason> = finishedReason;

/** Validates a `Msg` (a message of the conversation, as stored in agent state). */
export const messageSchema: z.ZodType<Msg> = message;

// Compile-time check: each schema infers exactly the declared type (no field
// missing, extra, or with a different optionality). Both sides are flattened
// first so that intersections compare equal to the object they describe.
type Flatten<T> = T extends (infer E)[]
  ? Flatten<E>[]
  : T extends object
    ? { [K in keyof T]: Flatten<T[K]> }
    : T;
type Same<A, B> =
  (<G>() => G extends Flatten<A> ? 1 : 2) extends <G>() => G extends Flatten<B> ? 1 : 2
    ? true
    : false;
type Expect<T extends true> = T;
type _MessageSchemasMatchTypes = [
  Expect<Same<z.infer<typeof permissionRule>, PermissionRule>>,
  Expect<Same<z.infer<typeof textBlock>, TextBlock>>,
  Expect<Same<z.infer<typeof dataBlock>, DataBlock>>,
  Expect<Same<z.infer<typeof thinkingBlock>, ThinkingBlock>>,
  Expect<Same<z.infer<typeof hintBlock>, HintBlock>>,
  Expect<Same<z.infer<typeof toolCallState>, ToolCallState>>,
  Expect<Same<z.infer<typeof toolCallBlock>, ToolCallBlock>>,
  Expect<Same<z.infer<typeof toolResultState>, ToolResultState>>,
  Expect<Same<z.infer<typeof toolResultBlock>, ToolResultBlock>>,
  Expect<Same<z.infer<typeof contentBlock>, ContentBlock>>,
  Expect<Same<z.infer<typeof finishedReason>, FinishedReason>>,
  Expect<Same<z.infer<typeof message>, Msg>>,
];
