import type { PermissionRule } from './permission-rule.js';

/** Plain text. */
export type TextBlock = { type: 'text'; text: string; id?: string };

/** Binary or remote content (an image, a file), inline as base64 or by URL. */
export type DataBlock = {
  type: 'data';
  id?: string;
  name?: string;
  source:
    | { type: 'base64'; data: string; mediaType: string }
    | { type: 'url'; url: string; mediaType: string };
};

/**
 * One block of the model's reasoning, kept as the provider sent it: each
 * block is its own block here too (never merged with a neighbour), because
 * providers that check reasoning (Anthropic) refuse blocks that changed.
 *
 * - `signature` is the provider's opaque proof, sent back unchanged with the
 *   block. A block may carry a signature and no text (Anthropic's
 *   `display: "omitted"`): it still goes back.
 * - `redactedData` marks a redacted block (Anthropic's `redacted_thinking`):
 *   the provider's encrypted reasoning, opaque and sent back byte for byte;
 *   `thinking` is then empty, and people are shown "reasoning (redacted)".
 */
export type ThinkingBlock = {
  type: 'thinking';
  thinking: string;
  id?: string;
  signature?: string;
  redactedData?: string;
};

/** Out-of-band guidance for the model (a reminder, a note from the runtime). */
export type HintBlock = {
  type: 'hint';
  hint: string | (TextBlock | DataBlock)[];
  id?: string;
  source?: string;
};

/** Where a tool call is in its life (SPEC section 2). */
export type ToolCallState = 'pending' | 'asking' | 'allowed' | 'submitted' | 'finished';

/** A tool call made by the model. `input` is the raw JSON text the model produced. */
export type ToolCallBlock = {
  type: 'tool_call';
  id: string;
  name: string;
  input: string;
  state: ToolCallState;
  suggestedRules: PermissionRule[];
};

/** How a tool call ended (`running` only while streaming). */
export type ToolResultState = 'success' | 'error' | 'interrupted' | 'denied' | 'running';

/** The result of a tool call; `id` is the tool call's id. */
export type ToolResultBlock = {
  type: 'tool_result';
  id: string;
  name: string;
  output: string | (TextBlock | DataBlock)[];
  state: ToolResultState;
  metadata?: Record<string, unknown>;
};

/** Any block of a message's content. Discriminated on `type`. */
export type ContentBlock =
  TextBlock | DataBlock | ThinkingBlock | HintBlock | ToolCallBlock | ToolResultBlock;
