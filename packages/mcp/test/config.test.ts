import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpConfigError, loadMcpConfig, parseMcpConfig } from '../src/index.js';

function problem(value: unknown): McpConfigError {
  try {
    parseMcpConfig(value);
  } catch (error) {
    if (error instanceof McpConfigError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('MCP config: the mcpServers shape, and errors that name the server and the problem', () => {
  it('accepts stdio and remote servers as people write them', () => {
    const config = parseMcpConfig({
      mcpServers: {
        fs: { command: 'node', args: ['server.js', '/data'], env: { A: 'b' }, trusted: true },
        remote: { url: 'https://example.test/mcp', headers: { authorization: 'Bearer x' } },
      },
    });
    expect(Object.keys(config.mcpServers)).toEqual(['fs', 'remote']);
    expect(config.mcpServers['fs']).toMatchObject({ command: 'node', trusted: true });
  });

  it('names the server: bad URL, wrong scheme, no command or url, both, bad field, bad name', () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { url: 'not a url' },
        'remote',
        /^MCP server 'remote': "url" "not a url" is not a valid URL$/,
      ],
      [{ url: 'file:///etc/passwd' }, 'remote', /must be http: or https:/],
      [{ args: [] }, 'x', /expected "command" \(a local server\) or "url"/],
      [{ command: 'a', url: 'https://a.test' }, 'x', /not both/],
      [{ command: 'node', args: 'server.js' }, 'x', /^MCP server 'x': args: /],
      [{ command: '' }, 'x', /command must not be empty/],
      ['node server.js', 'x', /expected an object/],
    ];
    for (const [server, name, message] of cases) {
      const error = problem({ mcpServers: { [name]: server } });
      expect(error.code).toBe('mcp_config');
      expect(error.server).toBe(name);
      expect(error.message).toMatch(message);
    }
    expect(problem({ mcpServers: { 'a b': { command: 'x' } } }).message).toMatch(
      /^MCP server 'a b': the name may only use/,
    );
    expect(problem({ mcpServers: { a__b: { command: 'x' } } }).message).toMatch(
      /^MCP server 'a__b': the name must not contain "__"/,
    );
    // `git_` would hide behind rules for `git`: its tool `x` would be mcp__git___x.
    expect(problem({ mcpServers: { git_: { command: 'x' } } }).message).toMatch(
      /^MCP server 'git_': the name must not end with "_"/,
    );
    expect(problem({ mcpServers: { ['s'.repeat(41)]: { command: 'x' } } }).message).toMatch(
      /must be at most 40 characters/,
    );
    expect(problem({ servers: {} }).message).toMatch(/"mcpServers"/);
  });

  it('a file that is not JSON names the file and the parse problem', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'parley-mcp-config-'));
    try {
      const path = join(folder, 'mcp.json');
      await writeFile(path, '{ "mcpServers": { "fs": ');
      await expect(loadMcpConfig(path)).rejects.toThrow(
        new RegExp(
          `^MCP config ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON: `,
        ),
      );
      await expect(loadMcpConfig(join(folder, 'missing.json'))).rejects.toThrow(
        /cannot read MCP config/,
      );
      await writeFile(path, JSON.stringify({ mcpServers: { fs: { command: 'node' } } }));
      expect((await loadMcpConfig(path)).mcpServers['fs']).toMatchObject({ command: 'node' });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
