import { ParleyError } from '@parley/core';

/**
 * An MCP configuration that cannot be used: not JSON, not the
 * `{ "mcpServers": { ... } }` shape, or a server entry with a bad field.
 * `server` names the entry at fault when there is one.
 */
export class McpConfigError extends ParleyError {
  readonly server: string | undefined;
  constructor(message: string, options: { server?: string; cause?: unknown } = {}) {
    super(
      'mcp_config',
      options.server === undefined ? message : `MCP server '${options.server}': ${message}`,
      { cause: options.cause },
    );
    this.server = options.server;
  }
}

/**
 * An MCP server could not be reached: it did not start, did not answer in
 * time, or died. `server` names it. Thrown by `connectMcp`; during a tool
 * call it becomes the call's `error` result instead, so the agent goes on.
 */
export class McpServerError extends ParleyError {
  readonly server: string;
  constructor(server: string, message: string, options: { cause?: unknown } = {}) {
    super('mcp_server', `MCP server '${server}': ${message}`, options);
    this.server = server;
  }
}
