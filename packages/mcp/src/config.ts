import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { describeZodIssues } from '@parley/core';
import type { Transport } from '@modelcontextprotocol/client';
import { McpConfigError } from './errors.js';
import { MAX_SERVER_NAME_CHARS } from './names.js';

/** Which MCP protocol era to speak: `legacy` (2025 revisions), `auto` (probe), or the 2026 revision pinned. */
export type McpProtocol = 'legacy' | 'auto' | '2026-07-28';

const common = {
  /** Lets the server's `readOnlyHint` allow a call without asking. */
  trusted: z.boolean().optional(),
  /** How long starting the server (and listing its tools) may take, in ms. */
  startupTimeoutMs: z.number().int().positive().optional(),
  /** How long one tool call may take, in ms (the SDK's request timeout). */
  callTimeoutMs: z.number().int().positive().optional(),
  protocol: z.enum(['legacy', 'auto', '2026-07-28']).optional(),
};

const stdioSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  /** Run the server inside bubblewrap (see `sandboxedCommand`). */
  sandbox: z
    .union([
      z.boolean(),
      z.object({
        network: z.boolean().optional(),
        writable: z.array(z.string()).optional(),
        /** Secrets the server may read (masked otherwise), like those its arguments name. */
        readable: z.array(z.string()).optional(),
      }),
    ])
    .optional(),
  ...common,
});

const httpSchema = z.object({
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  url: z.string().min(1, 'url must not be empty'),
  headers: z.record(z.string(), z.string()).optional(),
  ...common,
});

/** A server started as a child process, speaking MCP on stdin/stdout. */
export type McpStdioServerConfig = z.output<typeof stdioSchema>;

/** A remote server: Streamable HTTP, falling back to SSE (`type: 'sse'` uses SSE only). */
export type McpHttpServerConfig = z.output<typeof httpSchema>;

/**
 * A server reached through a transport the program builds (in-process
 * servers, custom transports). Not expressible in JSON; for programs and tests.
 */
export type McpTransportServerConfig = {
  transport: () => Transport;
  trusted?: boolean;
  startupTimeoutMs?: number;
  callTimeoutMs?: number;
  protocol?: McpProtocol;
};

/** One entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpTransportServerConfig;

/** The configuration in the shape people already write: `{ "mcpServers": { name: ... } }`. */
export type McpConfig = { mcpServers: Record<string, McpServerConfig> };

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they are kept plain. */
const serverNamePattern = /^[A-Za-z0-9_-]+$/;

/**
 * A server name must make the server part of `mcp__<server>__<tool>`
 * readable exactly: no `__` inside and no `_` at the end (or server `git_`
 * would hide behind rules for `git`), and short enough to leave the tool
 * part room within the 64 characters model APIs accept.
 */
function checkName(name: string): void {
  const problem = !serverNamePattern.test(name)
    ? 'the name may only use letters, digits, "_" and "-"'
    : name.includes('__')
      ? 'the name must not contain "__"'
      : name.endsWith('_')
        ? 'the name must not end with "_"'
        : name.length > MAX_SERVER_NAME_CHARS
          ? `the name must be at most ${MAX_SERVER_NAME_CHARS} characters`
          : undefined;
  if (problem !== undefined) {
    throw new McpConfigError(
      `${problem} (it becomes the server part of the tool names mcp__<server>__<tool>)`,
      { server: name },
    );
  }
}

function isTransportConfig(value: unknown): value is McpTransportServerConfig {
  return (
    typeof value === 'object' &&
    value !== null &&
    'transport' in value &&
    typeof value.transport === 'function'
  );
}

function parseServer(name: string, value: unknown): McpServerConfig {
  checkName(name);
  if (isTransportConfig(value)) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpConfigError('expected an object with "command" or "url"', { server: name });
  }
  const hasCommand = 'command' in value;
  const hasUrl = 'url' in value;
  if (hasCommand === hasUrl) {
    throw new McpConfigError(
      hasCommand
        ? 'give either "command" (a local server) or "url" (a remote one), not both'
        : 'expected "command" (a local server) or "url" (a remote one)',
      { server: name },
    );
  }
  const parsed = (hasCommand ? stdioSchema : httpSchema).safeParse(value);
  if (!parsed.success) {
    throw new McpConfigError(describeZodIssues(parsed.error), { server: name });
  }
  const config = parsed.data;
  if ('url' in config) {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch (error) {
      throw new McpConfigError(`"url" ${JSON.stringify(config.url)} is not a valid URL`, {
        server: name,
        cause: error,
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new McpConfigError(
        `"url" must be http: or https:, got ${JSON.stringify(url.protocol)}`,
        { server: name },
      );
    }
  }
  return config;
}

/**
 * Checks a configuration object (e.g. parsed JSON) and returns it typed.
 * Throws `McpConfigError` naming the server and the problem.
 */
export function parseMcpConfig(value: unknown): McpConfig {
  if (typeof value !== 'object' || value === null || !('mcpServers' in value)) {
    throw new McpConfigError('expected an object with "mcpServers": { "<name>": { ... } }');
  }
  const servers = value.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new McpConfigError('"mcpServers" must be an object of named servers');
  }
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(servers)) {
    mcpServers[name] = parseServer(name, server);
  }
  return { mcpServers };
}

/**
 * Reads and checks a JSON configuration file (`parley chat --mcp FILE`, and
 * later `parley serve`). Throws `McpConfigError` naming the file, and the
 * server when one entry is at fault.
 */
export async function loadMcpConfig(path: string): Promise<McpConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new McpConfigError(
      `cannot read MCP config ${path}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(
      `MCP config ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return parseMcpConfig(value);
}
