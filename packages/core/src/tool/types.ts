import type { z } from 'zod';
import type {
  DataBlock,
  PermissionRule,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../message/index.js';
import type {
  AllowedBy,
  PermissionContext,
  PermissionDecision,
  PermissionSubject,
} from '../permission/index.js';

/** A logger a library part can be given; the default drops everything. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** What a tool's `execute` is given besides its input. */
export type ToolContext = {
  toolCallId: string;
  replyId: string;
  sessionId: string;
  /** Aborted when the reply is interrupted or cancelled; long-running tools must stop. */
  signal: AbortSignal;
  permission: PermissionContext;
  logger: Logger;
  /**
   * How the permission step allowed this call (`readOnly`, `rule`, `mode`,
   * `user`). A tool may run a call no more widely than that permits: Bash
   * runs a call allowed as read-only, or unasked in a mode that writes
   * nothing unasked, in its read-only sandbox. Absent when the caller did
   * not say (a tool run outside an agent): the tool decides as before.
   */
  allowedBy?: AllowedBy;
  /**
   * On a run after a `tool_suspend`: the calls this call raised and their
   * results, oldest first (the answers it waited for). Absent on a first run.
   */
  answers?: ToolAnswer[];
};

/** A call a tool raised (`tool_suspend`) and the result that answered it. */
export type ToolAnswer = { call: ToolCallBlock; result: ToolResultBlock };

/**
 * A whole tool result returned at once. `state` defaults to `success`;
 * `interrupted` says the outcome is unknown (e.g. the connection that held
 * the work is gone).
 */
export type ToolResponse = {
  output: string | (TextBlock | DataBlock)[];
  state?: 'success' | 'error' | 'interrupted';
  metadata?: Record<string, unknown>;
};

/** The closing chunk of a streamed result: its state and metadata. */
export type ToolEndChunk = {
  type: 'tool_end';
  state?: 'success' | 'error' | 'interrupted';
  metadata?: Record<string, unknown>;
};

/**
 * The tool cannot finish without an answer from outside (say, a form an MCP
 * server asks the user to fill in). The call stops here: the agent adds an
 * external call of tool `name` with `input` to the reply, parks with
 * REQUIRE_EXTERNAL_EXECUTION for it, and once its result arrives runs this
 * call again, with every answer so far in `ToolContext.answers`. The call's
 * own TOOL_RESULT_START stays open meanwhile; what it output before this
 * chunk is not kept. Nothing may follow it.
 */
export type ToolSuspendChunk = {
  type: 'tool_suspend';
  name: string;
  input: Record<string, unknown>;
};

/** One piece of a streamed tool result. */
export type ToolChunk = TextBlock | DataBlock | ToolEndChunk | ToolSuspendChunk;

/** What `execute` may return: text, a whole response, or a stream of chunks. */
export type ToolOutput = string | ToolResponse | AsyncIterable<ToolChunk>;

/**
 * A tool the agent can call. `tool()` builds one from a definition; the
 * built-in system tools implement it directly (their answers depend on the
 * input, e.g. a read-only `ls`).
 */
export interface Tool<Input = unknown> extends PermissionSubject<Input> {
  readonly name: string;
  readonly description: string;
  /** Validates the model's input. */
  readonly inputSchema: z.ZodType<Input>;
  /** No `execute`: results come from outside (REQUIRE_EXTERNAL_EXECUTION). */
  readonly external: boolean;
  /** Safe to run again after a crash left its outcome unknown. */
  readonly idempotent: boolean;
  /** The JSON Schema the model sees. */
  jsonSchema(): Record<string, unknown>;
  isConcurrencySafe(input: Input): boolean;
  /**
   * Checks the metadata of an externally produced successful result against
   * what was asked; returns a problem description, or undefined when fine.
   */
  checkResultMetadata(
    input: Input,
    metadata: Record<string, unknown> | undefined,
  ): string | undefined;
  execute?(input: Input, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** The definition `tool()` takes (API.md, "Tools"). */
export type ToolDefinition<Schema extends z.ZodType> = {
  name: string;
  description: string;
  input: Schema;
  readOnly?: boolean;
  concurrencySafe?: boolean;
  external?: boolean;
  idempotent?: boolean;
  checkPermissions?: (
    input: z.output<Schema>,
    context: PermissionContext,
  ) => PermissionDecision | Promise<PermissionDecision>;
  matchRule?: (ruleContent: string | null, input: z.output<Schema>) => boolean;
  suggestRules?: (input: z.output<Schema>) => PermissionRule[];
  outputMetadata?: z.ZodType;
  /** A further check of an external result's metadata against the input; returns a problem or undefined. */
  checkResult?: (input: z.output<Schema>, metadata: unknown) => string | undefined;
  execute?: (input: z.output<Schema>, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
};

/**
 * A tool of any input type, as a toolkit holds it. Tool methods take their
 * input as a parameter, so only `any` lets differently typed tools share a list.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;
