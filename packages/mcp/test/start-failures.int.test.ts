import { describe, expect, it } from 'vitest';
import { McpServerError, connectMcp } from '../src/index.js';

describe('servers that cannot start: a typed error naming the server and the problem', () => {
  it('an unknown command', async () => {
    const attempt = connectMcp({ mcpServers: { ghost: { command: 'parley-no-such-mcp-server' } } });
    await expect(attempt).rejects.toBeInstanceOf(McpServerError);
    await expect(attempt).rejects.toMatchObject({ code: 'mcp_server', server: 'ghost' });
    await expect(attempt).rejects.toThrow(/^MCP server 'ghost': could not start: .*ENOENT/);
  });

  it('a URL where nothing listens (Streamable HTTP, then the SSE fallback, both refused)', async () => {
    const attempt = connectMcp({
      mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp', startupTimeoutMs: 5000 } },
    });
    await expect(attempt).rejects.toMatchObject({ code: 'mcp_server', server: 'remote' });
    await expect(attempt).rejects.toThrow(/^MCP server 'remote': could not start: /);
  });

  it('a server that exits at once names its stderr', async () => {
    const attempt = connectMcp({
      mcpServers: {
        broken: {
          command: process.execPath,
          args: ['-e', 'console.error("no config here"); process.exit(3)'],
        },
      },
    });
    await expect(attempt).rejects.toThrow(
      /^MCP server 'broken': could not start: .*no config here/,
    );
  });
});
