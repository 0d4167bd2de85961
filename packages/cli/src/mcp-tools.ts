import { resolve } from 'node:path';
import type { AnyTool, ToolCallBlock, Toolkit } from '@parley/core';

/** The MCP servers' tools for a chat, and how to stop the servers afterwards. */
export type McpToolSet = { tools: AnyTool[]; note: string; close: () => Promise<void> };

/**
 * `--mcp FILE`: reads the config (the loader `parley serve` will share),
 * starts the servers and returns their tools (with `McpElicitation`). A bad
 * file or a server that cannot start throws an error naming it. The package
 * loads only when the flag is given.
 */
export async function loadMcpTools(path: string): Promise<McpToolSet> {
  const { connectMcp, loadMcpConfig } = await import('@parley/mcp');
  const mcp = await connectMcp(await loadMcpConfig(resolve(path)));
  const count = mcp.mcpTools.length;
  return {
    tools: mcp.tools,
    note: `MCP: ${count} tool${count === 1 ? '' : 's'} from ${mcp.servers.join(', ')}`,
    close: () => mcp.close(),
  };
}

/**
 * The warning shown when an MCP tool the server says may change or delete
 * data asks for permission (its destructive hint, a claim of the server).
 */
export function destructiveWarning(toolkit: Toolkit, toolCall: ToolCallBlock): string | undefined {
  const found = toolkit.get(toolCall.name);
  if (found === undefined || !('isDestructive' in found)) return undefined;
  const check = found.isDestructive;
  return typeof check === 'function' && check.call(found) === true
    ? 'the MCP server says this tool may change or delete data'
    : undefined;
}
