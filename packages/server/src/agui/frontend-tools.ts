import { SessionBusyError, Toolkit, isValidToolName } from '@parley/core';
import type { AnyTool, SessionAgentOptions, SessionsOptions } from '@parley/core';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';

/** A tool an AG-UI client offers for one run (`RunAgentInput.tools`): it runs in the client. */
export type ClientTool = { name: string; description: string; parameters?: unknown };

const anyInput = z.record(z.string(), z.unknown());

/** The JSON Schema the model sees for a client tool: its `parameters`, or any object. */
function schemaOf(parameters: unknown): Record<string, unknown> {
  const parsed = anyInput.safeParse(parameters);
  return parsed.success && Object.keys(parsed.data).length > 0
    ? parsed.data
    : { type: 'object', properties: {} };
}

/**
 * A client tool as a Parley tool: external (the client runs it and sends the
 * result back as a tool message), allowed without asking (the person using
 * the client is the one it runs for), safe to run beside others.
 */
export function clientTool(offered: ClientTool): AnyTool {
  const schema = schemaOf(offered.parameters);
  return {
    name: offered.name,
    description: offered.description,
    inputSchema: anyInput,
    external: true,
    idempotent: false,
    jsonSchema: () => schema,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    checkPermissions: () => ({ behavior: 'allow', message: 'The client runs this tool.' }),
    matchRule: (ruleContent) => ruleContent === null,
    suggestRules: () => [],
    checkResultMetadata: () => undefined,
  };
}

/**
 * The agent options of the server's `Sessions`, with the tools an AG-UI
 * client offered for the run that is going on in a session added to the
 * toolkit. A run sets its tools before its first reply and clears them when
 * it is over; every other reply of the session sees the server's tools only.
 */
export class FrontendTools {
  private readonly offered = new Map<string, { tools: AnyTool[]; token: symbol }>();
  private readonly base: SessionsOptions['agent'];

  constructor(agent: SessionsOptions['agent']) {
    this.base = agent;
  }

  /** The agent options of `sessionId`, as `Sessions` takes them. */
  readonly agent = (sessionId: string): SessionAgentOptions => {
    const options = this.baseOf(sessionId);
    const extra = this.offered.get(sessionId)?.tools;
    if (extra === undefined || extra.length === 0) return options;
    const own = options.toolkit?.list() ?? [];
    return { ...options, toolkit: new Toolkit([...own, ...extra]) };
  };

  /** The server's own agent options of `sessionId`, without client tools. */
  baseOf(sessionId: string): SessionAgentOptions {
    return typeof this.base === 'function' ? this.base(sessionId) : this.base;
  }

  /**
   * The client tools of a run, checked: a name the server's toolkit already
   * has, or one offered twice, is refused (400), since the model could not
   * tell them apart; so is a name model providers refuse (`TOOL_NAME_PATTERN`).
   */
  toolsFor(sessionId: string, offered: readonly ClientTool[]): AnyTool[] {
    const own = new Set((this.baseOf(sessionId).toolkit?.list() ?? []).map((item) => item.name));
    const seen = new Set<string>();
    return offered.map((item, index) => {
      if (!isValidToolName(item.name)) {
        throw new InvalidRequestError(
          `tools.${index}.name`,
          `tools.${index}.name: ${JSON.stringify(item.name)} is not a tool name model providers take (1 to 64 letters, digits, '_' or '-').`,
        );
      }
      if (own.has(item.name) || seen.has(item.name)) {
        throw new InvalidRequestError(
          `tools.${index}.name`,
          `tools.${index}.name: '${item.name}' is ${own.has(item.name) ? "one of the agent's own tools" : 'offered twice'}.`,
        );
      }
      seen.add(item.name);
      return clientTool(item);
    });
  }

  /**
   * Offers `tools` to the replies of `sessionId` until the returned function
   * is called, which also marks the end of the run. One AG-UI run of a
   * session at a time: while one runs, another is refused with
   * `SessionBusyError` (409), so no other run's replies come between the
   * replies of a run.
   */
  offer(sessionId: string, tools: AnyTool[]): () => void {
    if (this.offered.has(sessionId)) throw new SessionBusyError(sessionId);
    const token = Symbol(sessionId);
    this.offered.set(sessionId, { tools, token });
    return () => {
      if (this.offered.get(sessionId)?.token === token) this.offered.delete(sessionId);
    };
  }
}
