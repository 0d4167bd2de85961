import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.js';
import { TmuxTerminal, parleyCommand, tmuxAvailable } from './tmux.js';

/*
 * End-to-end: `parley chat --mcp` with a real MCP server (server-everything
 * from node_modules, run with node) and an OpenAI-compatible fake model, in
 * a pseudo terminal. Without tmux this skips, except in CI.
 */

const available = tmuxAvailable();
const suite = available || process.env['CI'] !== undefined ? describe : describe.skip;
const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

const terminals: TmuxTerminal[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.close();
  for (const directory of directories.splice(0))
    await rm(directory, { recursive: true, force: true });
});

suite('parley chat --mcp', { timeout: 180_000 }, () => {
  it('asks before an MCP tool, then renders the server form question and sends the answer', async () => {
    const server = await startFakeOpenAI((request) => {
      const results = request.messages.filter((message) => message.role === 'tool');
      if (results.length === 0) {
        return {
          toolCalls: [
            { id: 'call_el', name: 'mcp__ev__trigger-elicitation-request', arguments: '{}' },
          ],
        };
      }
      return { text: `Server said: ${JSON.stringify(results.at(-1)?.content).slice(0, 60)}` };
    });
    try {
      const directory = await mkdtemp(join(tmpdir(), 'parley-chat-mcp-'));
      directories.push(directory);
      const config = join(directory, 'mcp.json');
      await writeFile(
        config,
        JSON.stringify({
          mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } },
        }),
      );
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'NO_COLOR', 'FORCE_COLOR', 'TMUX'])
        delete env[name];
      Object.assign(env, {
        XDG_STATE_HOME: join(directory, 'state'),
        TMPDIR: directory,
        TERM: 'xterm-256color',
      });
      const t = new TmuxTerminal({ width: 120, height: 50, cwd: directory, env });
      terminals.push(t);
      const spec = `openai-compatible:${server.url}#fake`;
      t.start([...parleyCommand, 'chat', '--model', spec, '--tools', 'none', '--mcp', config]);
      await t.waitFor(/MCP: \d+ tools from ev/);
      t.type('ask me something');
      t.press('Enter');
      await t.waitFor('Allow mcp__ev__trigger-elicitation-request?');
      t.press('Enter');
      await t.waitFor('MCP server ev asks you (during trigger-elicitation-request)');
      await t.waitFor('Answer the form?');
      t.press('Down', 'Enter');
      await t.waitFor('Server said: ');
      expect(t.screen().toLowerCase()).toContain('declin');
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
