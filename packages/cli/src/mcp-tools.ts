import { resolve } from 'node:path';
import type { AnyTool } from '@parley/core';

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
