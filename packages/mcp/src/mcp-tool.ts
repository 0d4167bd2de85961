import type {
  InputRequiredResult,
  InputResponses,
  Tool as McpToolDefinition,
  ToolAnnotations,
} from '@modelcontextprotocol/client';
import { permissionMessages, toolNameRule } from '@parley/core';
import type {
  PermissionDecision,
  Tool,
  ToolAnswer,
  ToolChunk,
  ToolContext,
  ToolResponse,
} from '@parley/core';
import { MCP_ELICITATION, parseElicitationCall, serverAnswerOf } from './elicitation.js';
import type { McpElicitationInput } from './elicitation.js';
import { McpServerError } from './errors.js';
import type { HeldCalls } from './held-calls.js';
import type { HeldElicitation, InFlightCall } from './in-flight-call.js';
import { isJsonObject, jsonSchemaInput } from './json-schema.js';
import type { CompiledSchema, JsonObject } from './json-schema.js';
import { jsonProblem } from './json-bounds.js';
import { mcpToolName } from './names.js';
import { toToolResponse } from './results.js';
import { refusedElicitation } from './server-connection.js';
import type { McpRetry, McpServerConnection } from './server-connection.js';
import { MAX_SCHEMA_CHARS } from './tool-list.js';
import type { McpToolEntry } from './tool-list.js';

/** How many `input_required` rounds in a row Parley answers itself before ending the call. */
const MAX_AUTOMATIC_ROUNDS = 4;

/** The schema of a tool the server no longer lists: any object (its calls end as "gone"). */
const anyObject: CompiledSchema = { usable: true, check: () => undefined };

/** Texts of results the MCP layer writes itself. */
export const mcpTexts = {
  gone: (server: string, tool: string) => `MCP server '${server}' no longer offers tool '${tool}'.`,
  heldElsewhere: (server: string) =>
    `<system-reminder>The MCP server '${server}' held this call open in a process that is gone, so the answer could not reach it; the call's outcome is unknown.</system-reminder>`,
  unsupportedInput: (server: string, method: string) =>
    `MCP server '${server}' asked for '${method}', which Parley does not provide; the call cannot go on.`,
  refusedRounds: (server: string, rounds: number) =>
    `MCP server '${server}' asked ${rounds} times in a row only for what Parley refuses; the call ends.`,
  destructiveReason: 'the MCP server says this tool may change or delete data',
  destructive: (name: string) =>
    `${permissionMessages.ask(name)} (the server says this tool may change or delete data)`,
} as const;

/** A Parley tool backed by an MCP server's tool: the server and its annotations are visible. */
export interface McpTool extends Tool<JsonObject> {
  readonly server: string;
  /** The tool's name on the server. */
  readonly mcpName: string;
  /** The server's hints (untrusted unless the server is `trusted`). */
  annotations(): ToolAnnotations;
  /** Whether the server says calls may change or delete data (shown to the person). */
  isDestructive(): boolean;
}

function* responseChunks(response: ToolResponse): Generator<ToolChunk> {
  if (typeof response.output === 'string') yield { type: 'text', text: response.output };
  else yield* response.output;
  yield {
    type: 'tool_end',
    ...(response.state === undefined ? {} : { state: response.state }),
    ...(response.metadata === undefined ? {} : { metadata: response.metadata }),
  };
}

function errorChunks(text: string, state: 'error' | 'interrupted' = 'error'): Generator<ToolChunk> {
  return responseChunks({ output: text, state });
}

/** A failed call as the model reads it: naming the server (an `McpServerError` already does). */
function failureText(server: string, error: unknown): string {
  if (error instanceof McpServerError) return error.message;
  return `MCP server '${server}': ${error instanceof Error ? error.message : String(error)}`;
}

/** The suspension for one elicitation request (held open, or of an `input_required` round). */
function suspendFor(
  server: string,
  tool: string,
  request: HeldElicitation['request'],
  retry?: McpElicitationInput['retry'],
): ToolChunk {
  const input: McpElicitationInput = {
    server,
    tool,
    mode: request.mode === 'url' ? 'url' : 'form',
    message: request.message,
  };
  if (request.mode === 'url') {
    input.url = request.url;
    if (request.elicitationId !== '') input.elicitationId = request.elicitationId;
  } else {
    input.requestedSchema = { ...request.requestedSchema };
  }
  if (retry !== undefined) input.retry = retry;
  return { type: 'tool_suspend', name: MCP_ELICITATION, input: { ...input } };
}

/** The elicitation params of an input request, when it is one. */
function elicitationOf(request: unknown): HeldElicitation['request'] | undefined {
  if (!isJsonObject(request) || request['method'] !== 'elicitation/create') return undefined;
  const params = request['params'];
  if (!isJsonObject(params) || typeof params['message'] !== 'string') return undefined;
  if (params['mode'] === 'url') {
    // The 2026 revision's URL requests carry no elicitationId (the round's key names them).
    const { url, elicitationId, message } = params;
    if (typeof url !== 'string') return undefined;
    return {
      mode: 'url',
      url,
      elicitationId: typeof elicitationId === 'string' ? elicitationId : '',
      message,
    };
  }
  const schema = params['requestedSchema'];
  if (!isJsonObject(schema)) return undefined;
  return {
    mode: 'form',
    message: params['message'],
    requestedSchema: { type: 'object', properties: {}, ...schema },
  };
}

/**
 * Builds the Parley tool for one MCP tool of a server. Permissions: asks
 * unless a rule allows it (by name, or `mcp__<server>__*`); a `readOnlyHint`
 * allows without asking only for a `trusted` server; a possibly destructive
 * tool says so in the ask. Runs: one `tools/call`; an elicitation suspends
 * the call (the reply parks for an `McpElicitation` call) and the answer
 * reaches the server when the call runs again.
 */
export function createMcpTool(
  connection: McpServerConnection,
  mcpName: string,
  held: HeldCalls,
): McpTool {
  const server = connection.name;
  let last: McpToolEntry | undefined = connection.entry(mcpName);
  const name = last?.name ?? mcpToolName(server, mcpName);
  const current = (): McpToolEntry | undefined => {
    last = connection.entry(mcpName) ?? last;
    return connection.entry(mcpName);
  };
  const definition = (): McpToolDefinition | undefined => (current() ?? last)?.definition;
  const annotations = (): ToolAnnotations => definition()?.annotations ?? {};
  const compiled = (): CompiledSchema => (current() ?? last)?.schema ?? anyObject;
  const trustedHint = (hint: 'readOnlyHint' | 'idempotentHint'): boolean =>
    connection.trusted && annotations()[hint] === true;
  const isDestructive = (): boolean =>
    annotations().readOnlyHint !== true && annotations().destructiveHint !== false;

  async function* run(input: JsonObject, context: ToolContext): AsyncGenerator<ToolChunk> {
    if (current() === undefined) {
      yield* errorChunks(mcpTexts.gone(server, mcpName));
      return;
    }
    const answers = context.answers ?? [];
    const answer = answers.at(-1);
    let call: InFlightCall;
    if (answer === undefined) {
      call = connection.call(mcpName, input);
    } else {
      const asked = parseElicitationCall(answer.call);
      if (asked.retry !== undefined) {
        const next = nextRetry(asked.retry, answers);
        if (!('retry' in next)) {
          yield* stop(next);
          return;
        }
        call = connection.call(mcpName, input, next.retry);
      } else {
        const holding = held.take(context.toolCallId);
        if (holding === undefined) {
          yield* errorChunks(mcpTexts.heldElsewhere(server), 'interrupted');
          return;
        }
        holding.answer(serverAnswerOf(answer));
        call = holding.call;
      }
    }
    let round = answers.reduce((max, item) => Math.max(max, roundOf(item) + 1), 0);
    // Rounds whose every request Parley answered itself (refused links) are retried at once.
    for (let automatic = 0; ; automatic++) {
      const event = await call.nextUnless(context.signal);
      switch (event.kind) {
        case 'elicit':
          held.hold(context.toolCallId, call, event.answer);
          yield suspendFor(server, mcpName, event.request);
          return;
        case 'input_required': {
          const retry = yield* firstOfRound(event.result, round);
          if (retry === undefined) return;
          if (automatic >= MAX_AUTOMATIC_ROUNDS) {
            yield* errorChunks(mcpTexts.refusedRounds(server, MAX_AUTOMATIC_ROUNDS));
            return;
          }
          call = connection.call(mcpName, input, retry);
          round += 1;
          continue;
        }
        case 'result':
          yield* responseChunks(toToolResponse(event.result));
          return;
        case 'failed':
          if (context.signal.aborted) throw event.error;
          yield* errorChunks(failureText(server, event.error));
          return;
      }
    }
  }

  function roundOf(answer: ToolAnswer): number {
    try {
      return parseElicitationCall(answer.call).retry?.round ?? -1;
    } catch {
      return -1;
    }
  }

  /**
   * Suspends for the first elicitation of a new `input_required` round; when
   * Parley answered every request itself (declined links), returns the retry.
   */
  function* firstOfRound(
    result: InputRequiredResult,
    round: number,
  ): Generator<ToolChunk, McpRetry | undefined> {
    const problem = jsonProblem(result, { maxChars: MAX_SCHEMA_CHARS });
    if (problem !== undefined) {
      yield* errorChunks(
        `MCP server '${server}' asked for input Parley cannot keep: the request is ${problem}.`,
      );
      return;
    }
    const requests: Record<string, JsonObject> = {};
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
      if (!isJsonObject(request)) continue;
      requests[key] = { ...request };
    }
    const retry = {
      round,
      requests,
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    };
    const next = nextRetry({ ...retry, key: '' }, []);
    if (!('retry' in next)) {
      yield* stop(next);
      return undefined;
    }
    if (Object.keys(next.retry.inputResponses).length === 0) {
      yield* errorChunks(`MCP server '${server}' asked for input without saying what.`);
      return undefined;
    }
    return next.retry;
  }

  /** Suspends for the next request, or ends the call when the server asks for what Parley lacks. */
  function* stop(next: { suspend: ToolChunk } | { unsupported: string }): Generator<ToolChunk> {
    if ('suspend' in next) yield next.suspend;
    else yield* errorChunks(mcpTexts.unsupportedInput(server, next.unsupported));
  }

  /** For a durable round: the next request to ask, or the retry once all are answered. */
  function nextRetry(
    retry: NonNullable<McpElicitationInput['retry']>,
    answers: ToolAnswer[],
  ): { suspend: ToolChunk } | { retry: McpRetry } | { unsupported: string } {
    const inputResponses: InputResponses = {};
    for (const answer of answers) {
      const asked = parseElicitationCall(answer.call).retry;
      if (asked?.round === retry.round) inputResponses[asked.key] = serverAnswerOf(answer);
    }
    for (const [key, request] of Object.entries(retry.requests)) {
      if (key in inputResponses) continue;
      const elicitation = elicitationOf(request);
      if (elicitation === undefined) {
        const method = request['method'];
        return { unsupported: typeof method === 'string' ? method : 'an unknown request' };
      }
      const refused = refusedElicitation(elicitation);
      if (refused !== undefined) {
        connection.logger.warn('MCP elicitation refused; answered decline', {
          server,
          reason: refused,
        });
        inputResponses[key] = { action: 'decline' };
        continue;
      }
      return { suspend: suspendFor(server, mcpName, elicitation, { ...retry, key }) };
    }
    return {
      retry: {
        inputResponses,
        ...(retry.requestState === undefined ? {} : { requestState: retry.requestState }),
      },
    };
  }

  const checkPermissions = (): PermissionDecision =>
    isDestructive()
      ? {
          behavior: 'ask',
          message: mcpTexts.destructive(name),
          decisionReason: mcpTexts.destructiveReason,
        }
      : { behavior: 'passthrough', message: '' };

  const built: McpTool = {
    name,
    server,
    mcpName,
    get description() {
      const listed = definition();
      const text = listed?.description ?? listed?.title ?? mcpName;
      const schema = compiled();
      return schema.usable ? text : `(Unavailable: its ${schema.reason}.) ${text}`;
    },
    inputSchema: jsonSchemaInput(compiled),
    external: false,
    get idempotent() {
      return trustedHint('idempotentHint');
    },
    jsonSchema() {
      // A schema Parley cannot compile is not sent on either (a provider may refuse it).
      if (!compiled().usable) return { type: 'object' };
      const { $schema: _dialect, ...rest } = definition()?.inputSchema ?? { type: 'object' };
      return rest;
    },
    annotations,
    isDestructive,
    isReadOnly: () => trustedHint('readOnlyHint'),
    isConcurrencySafe: () => trustedHint('readOnlyHint'),
    checkPermissions,
    matchRule: (ruleContent) => ruleContent === null,
    suggestRules: () => [toolNameRule(name)],
    checkResultMetadata: () => undefined,
    execute: (input, context) => run(input, context),
  };
  return built;
}
