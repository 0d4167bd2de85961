import type { AnyTool, Logger } from '@parley/core';
import { parseMcpConfig } from './config.js';
import type { McpConfig } from './config.js';
import { McpElicitation } from './elicitation.js';
import { HeldCalls } from './held-calls.js';
import { createMcpTool } from './mcp-tool.js';
import type { McpTool } from './mcp-tool.js';
import { McpServerConnection } from './server-connection.js';
import type { McpToolDefinition } from './server-connection.js';
import type { McpToolProblem } from './tool-list.js';

/** Options of `connectMcp`. */
export type ConnectMcpOptions = {
  /** Where the MCP layer logs (server restarts, refresh failures); default: nowhere. */
  logger?: Logger;
  /** How long a held-open elicitation waits for its answer before it is cancelled (ms). */
  heldElicitationTimeoutMs?: number;
  /**
   * Tool definitions by server, as `mcp.manifest()` gave them earlier: the
   * servers named here are not started by `connectMcp`, only by the first
   * call of one of their tools (lazy start, e.g. for many short sessions).
   */
  manifest?: McpManifest;
};

/** The tools each server offered, by server name (plain JSON; store it to start lazily later). */
export type McpManifest = Record<string, McpToolDefinition[]>;

const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The MCP servers of a config, connected: their tools as Parley tools
 * (plus `McpElicitation`, which answers the servers' questions), kept fresh
 * on `tools/list_changed`, and closed together.
 */
export class McpConnections {
  private readonly connections: McpServerConnection[];
  private readonly lazy = new Set<string>();
  private readonly held: HeldCalls;
  private readonly byName = new Map<string, McpTool>();
  private readonly listeners = new Set<(tools: AnyTool[]) => void>();
  private readonly clashes: McpToolProblem[] = [];
  private readonly logger: Logger;

  /** @internal Built by `connectMcp`. */
  constructor(config: McpConfig, options: ConnectMcpOptions = {}) {
    const logger = options.logger ?? silentLogger;
    this.logger = logger;
    this.held = new HeldCalls(options.heldElicitationTimeoutMs);
    this.connections = Object.entries(config.mcpServers).map(
      ([name, server]) =>
        new McpServerConnection(name, server, { logger, onToolsChanged: () => this.refresh() }),
    );
    for (const connection of this.connections) {
      const listed = options.manifest?.[connection.name];
      if (listed === undefined) continue;
      connection.seed(listed);
      this.lazy.add(connection.name);
    }
  }

  /**
   * The tools of every server, named `mcp__<server>__<tool>`, and
   * `McpElicitation` last. Put them in the agent's toolkit.
   */
  get tools(): AnyTool[] {
    return [...this.byName.values(), McpElicitation];
  }

  /** The MCP tools only, with their server and annotations. */
  get mcpTools(): McpTool[] {
    return [...this.byName.values()];
  }

  /**
   * The tools Parley left out, trimmed, or cannot call, and why (a schema
   * too large or not compilable, a long description, two tools that would
   * get one name). Also logged; a program shows them to the person.
   */
  get problems(): McpToolProblem[] {
    return [...this.connections.flatMap((connection) => connection.problems()), ...this.clashes];
  }

  /** The names of the configured servers. */
  get servers(): string[] {
    return this.connections.map((connection) => connection.name);
  }

  /**
   * Calls `listener` with the tool list when a server's list changed
   * (`tools/list_changed`). Validation and hints follow the new definitions
   * at once and tools that are gone answer with an error; new tools, and
   * the descriptions the model is told (a `Toolkit` builds them once), need
   * a new toolkit from the program. Returns an unsubscribe.
   */
  onToolsChanged(listener: (tools: AnyTool[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many tool calls wait for an elicitation answer held open in this process. */
  get heldCalls(): number {
    return this.held.size;
  }

  /**
   * Starts every server not given by the manifest and lists its tools (in
   * parallel); fails with the first that cannot start.
   */
  async start(): Promise<void> {
    await Promise.all(
      this.connections
        .filter((connection) => !this.lazy.has(connection.name))
        .map((connection) => connection.start()),
    );
    this.refresh(false);
  }

  /** The tools each server offers now, to store and pass back as `manifest` later. */
  manifest(): McpManifest {
    return Object.fromEntries(
      this.connections.map((connection) => [connection.name, connection.tools()]),
    );
  }

  /** Cancels held elicitations and stops every server. */
  async close(): Promise<void> {
    this.held.cancelAll();
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private refresh(notify = true): void {
    for (const connection of this.connections) {
      for (const entry of connection.entries()) {
        const known = this.byName.get(entry.name);
        if (known === undefined) {
          this.byName.set(entry.name, createMcpTool(connection, entry.definition.name, this.held));
        } else if (known.server !== connection.name || known.mcpName !== entry.definition.name) {
          const clash: McpToolProblem = {
            server: connection.name,
            tool: entry.definition.name,
            reason: `left out: ${entry.name} is already the name of tool '${known.mcpName}' of server '${known.server}'`,
          };
          const seen = this.clashes.some(
            (other) => other.server === clash.server && other.tool === clash.tool,
          );
          if (!seen) {
            this.clashes.push(clash);
            this.logger.warn('MCP tool problem', { ...clash });
          }
        }
      }
    }
    if (notify) for (const listener of this.listeners) listener(this.tools);
  }
}

/**
 * Connects the MCP servers of a config (an `McpConfig` object, parsed JSON, or the result of
 * `loadMcpConfig`): starts each, lists its tools, and returns them as
 * Parley tools under the same permission engine. A server that cannot
 * start fails the connect with `McpServerError` naming it; one that dies
 * later is restarted on its next call (a failed restart is that call's
 * error result).
 *
 * @example
 * const mcp = await connectMcp({ mcpServers: { fs: { command: 'node', args: ['server.js', '/data'], trusted: true } } });
 * const toolkit = new Toolkit([...mcp.tools, AskUser]);
 * // ...
 * await mcp.close();
 */
export async function connectMcp(
  config: unknown,
  options: ConnectMcpOptions = {},
): Promise<McpConnections> {
  const connections = new McpConnections(parseMcpConfig(config), options);
  try {
    await connections.start();
  } catch (error) {
    await connections.close();
    throw error;
  }
  return connections;
}
