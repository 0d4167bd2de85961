import { resolve } from 'node:path';
import type { AnyTool } from '@parley/core';
import { inert } from './inert.js';

/** The MCP servers' tools for a chat, and how to stop the servers afterwards. */
export type McpToolSet = {
  tools: AnyTool[];
  /** What to tell the person: the tools offered, then each tool left out, trimmed or unusable. */
  notes: string[];
  close: () => Promise<void>;
};

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
    notes: [
      `MCP: ${count} tool${count === 1 ? '' : 's'} from ${mcp.servers.join(', ')}`,
      ...mcp.problems.map((problem) =>
        inert(`MCP server '${problem.server}', tool '${problem.tool}': ${problem.reason}`),
      ),
    ],
    close: () => mcp.close(),
  };
}
