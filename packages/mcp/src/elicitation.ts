import { z } from 'zod';
import { InvalidInputError, describeZodIssues, parseToolInput, tool } from '@parley/core';
import type { ToolAnswer, ToolCallBlock, ToolResultBlock } from '@parley/core';
import { checkJsonSchema, isJsonObject } from './json-schema.js';

/** The name of the built-in call an MCP elicitation parks the reply for. */
export const MCP_ELICITATION = 'McpElicitation';

const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, 'expected a JSON object');

/**
 * For servers of the 2026 revision (`input_required`): what the retry of the
 * tool call needs, kept in the session with the call so any process can
 * retry. `requests` are the round's input requests by key, `key` the one
 * this call answers, `round` counts the server's `input_required` answers.
 */
const retrySchema = z
  .object({
    round: z.number().int().nonnegative(),
    key: z.string(),
    requestState: z.string().optional(),
    requests: z.record(z.string(), jsonObject),
  })
  .strict();

/** The input of an `McpElicitation` call: what the server asks, of whom, in which mode. */
export const mcpElicitationInputSchema = z
  .object({
    server: z.string(),
    tool: z.string(),
    mode: z.enum(['form', 'url']),
    message: z.string(),
    requestedSchema: jsonObject.optional(),
    url: z.string().optional(),
    elicitationId: z.string().optional(),
    retry: retrySchema.optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.mode === 'form' && input.requestedSchema === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a form request needs requestedSchema' });
    }
    if (input.mode === 'url' && input.url === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a URL request needs url' });
    }
  });

/** Form content as MCP allows it: flat fields of strings, numbers, booleans or string lists. */
const formContent = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
);

/** The answer's metadata: the person's action and, for an accepted form, the content. */
export const mcpElicitationMetadataSchema = z
  .object({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: formContent.optional(),
  })
  .strict();

/** An `McpElicitation` call's input: which server and tool ask, how (form or URL), and what. */
export type McpElicitationInput = z.output<typeof mcpElicitationInputSchema>;
/** An `McpElicitation` result's metadata: the person's action and, for an accepted form, its content. */
export type McpElicitationMetadata = z.output<typeof mcpElicitationMetadataSchema>;
/** What goes back to the server: MCP's `ElicitResult`. */
export type McpElicitationAnswer = McpElicitationMetadata;

/**
 * Checks an answer against what was asked: accepted form content must fit
 * `requestedSchema`; a URL request and a declined or cancelled one carry no
 * content. Returns the problem, or undefined.
 */
export function checkMcpElicitationAnswer(
  input: McpElicitationInput,
  metadata: unknown,
): string | undefined {
  const parsed = mcpElicitationMetadataSchema.safeParse(metadata);
  if (!parsed.success) return describeZodIssues(parsed.error);
  const { action, content } = parsed.data;
  if (action !== 'accept' || input.mode === 'url') {
    return content === undefined
      ? undefined
      : `an answer with action '${action}' carries no content`;
  }
  if (content === undefined) return 'an accepted form answer needs content';
  const problem = checkJsonSchema(input.requestedSchema ?? {}, content);
  return problem === undefined
    ? undefined
    : `content does not fit the requested schema: ${problem}`;
}

const description = `Raised by MCP servers while one of their tools runs, to ask the user for input (a form, or a link to open). It is answered by the user, never called by the model.`;

/**
 * The built-in external tool of MCP elicitation. A running MCP tool call
 * raises it (it is never the model's to call: a direct call is denied); the
 * reply parks with REQUIRE_EXTERNAL_EXECUTION; the answer is a result whose
 * metadata is `{ action, content? }`, checked against the request.
 */
export const McpElicitation = tool({
  name: MCP_ELICITATION,
  description,
  input: mcpElicitationInputSchema,
  external: true,
  concurrencySafe: true,
  checkPermissions: () => ({
    behavior: 'deny',
    message: `${MCP_ELICITATION} is raised by MCP servers during a tool call; it cannot be called directly.`,
    decisionReason: 'raised by MCP servers only',
  }),
  outputMetadata: mcpElicitationMetadataSchema,
  checkResult: checkMcpElicitationAnswer,
});

/** The text the model reads for an answer. */
function answerText(input: McpElicitationInput, answer: McpElicitationAnswer): string {
  switch (answer.action) {
    case 'accept':
      return input.mode === 'url'
        ? `The user opened ${input.url ?? 'the link'} and says it is done.`
        : `The user answered: ${JSON.stringify(answer.content ?? {})}`;
    case 'decline':
      return 'The user declined to answer.';
    case 'cancel':
      return 'The user dismissed the request without answering.';
  }
}

/**
 * Builds the result a renderer sends back for an `McpElicitation` call,
 * after checking the answer against the request (a bad one throws
 * `InvalidInputError`, before anything is sent).
 *
 * @example
 * mcpElicitationResult(call, { action: 'accept', content: { name: 'Ada' } });
 */
export function mcpElicitationResult(
  toolCall: ToolCallBlock,
  answer: McpElicitationAnswer,
): ToolResultBlock {
  const input = parseElicitationCall(toolCall);
  const problem = checkMcpElicitationAnswer(input, answer);
  if (problem !== undefined) {
    throw new InvalidInputError(`Answer to ${MCP_ELICITATION} call '${toolCall.id}': ${problem}`);
  }
  const metadata: McpElicitationMetadata = { action: answer.action };
  if (answer.content !== undefined) metadata.content = answer.content;
  return {
    type: 'tool_result',
    id: toolCall.id,
    name: toolCall.name,
    output: answerText(input, answer),
    state: 'success',
    metadata,
  };
}

/** The request an `McpElicitation` call carries (its input, checked). */
export function parseElicitationCall(toolCall: ToolCallBlock): McpElicitationInput {
  const parsed = parseToolInput(McpElicitation, toolCall.input);
  if (!parsed.ok) {
    throw new InvalidInputError(
      `${MCP_ELICITATION} call '${toolCall.id}' has invalid input: ${parsed.reason}`,
    );
  }
  return parsed.input;
}

/**
 * What the server is told for an answer. Anything but a successful, valid
 * answer — an expiry, an interrupt, an error — is `cancel`: fail closed.
 */
export function serverAnswerOf(answer: ToolAnswer): McpElicitationAnswer {
  if (answer.result.state !== 'success') return { action: 'cancel' };
  const parsed = mcpElicitationMetadataSchema.safeParse(answer.result.metadata);
  if (!parsed.success) return { action: 'cancel' };
  let input: McpElicitationInput;
  try {
    input = parseElicitationCall(answer.call);
  } catch {
    return { action: 'cancel' };
  }
  if (checkMcpElicitationAnswer(input, parsed.data) !== undefined) return { action: 'cancel' };
  return parsed.data;
}
