import { describe, expect, it } from 'vitest';
import { mcpExample } from './mcp.js';

describe('MCP guide example runs as documented', () => {
  it('echo runs without asking; the form parks, and the answer reaches the server', async () => {
    const result = await mcpExample();
    expect(result.echoed).toBe('Echo: hello');
    expect(JSON.parse(result.asked)).toMatchObject({
      server: 'everything',
      tool: 'trigger-elicitation-request',
      mode: 'form',
    });
    expect(result.answered).toContain('Ada Lovelace');
    expect(result.final).toBe('Thanks, noted.');
  });
});
