import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../src/index.js';
import type { McpConnections } from '../src/index.js';
import { scriptedAgent, serverScript } from './support.js';

// A stdio server with `sandbox` in its entry runs inside bubblewrap (ADR
// tools-0007): it may write only the directories given. Needs bubblewrap
// (`.ci/services` installs it); outside CI the file skips without it.

const inCi = process.env.CI === 'true' || process.env.CI === '1';
const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', 'true']);
const available = bwrap.error === undefined && bwrap.status === 0;
if (!available && !inCi) console.log('MCP sandbox tests skipped: bubblewrap cannot run here');

let folder: string;
let other: string;
let mcp: McpConnections;

describe.runIf(available || inCi)('a stdio server in the sandbox', () => {
  beforeAll(async () => {
    folder = await realpath(await mkdtemp(join(tmpdir(), 'parley-mcp-sandbox-')));
    // Outside /tmp, so the sandbox shows it (read-only) and the server accepts it.
    other = await realpath(await mkdtemp('/var/tmp/parley-mcp-outside-'));
    mcp = await connectMcp({
      mcpServers: {
        fs: {
          command: process.execPath,
          args: [serverScript('@modelcontextprotocol/server-filesystem'), folder, other],
          sandbox: { writable: [folder] },
          trusted: true,
        },
      },
    });
  });
  afterAll(async () => {
    await mcp.close();
    await rm(folder, { recursive: true, force: true });
    await rm(other, { recursive: true, force: true });
  });

  it('writes where it may, and a write elsewhere fails on the read-only file system', async () => {
    const write = (id: string, path: string) => ({
      toolCalls: [{ id, name: 'mcp__fs__write_file', input: { path, content: 'x\n' } }],
    });
    const { agent, model } = scriptedAgent(
      [write('in', join(folder, 'a.txt')), write('out', join(other, 'b.txt')), { text: 'ok' }],
      mcp.tools,
      [{ toolName: 'mcp__fs__write_file', ruleContent: null, behavior: 'allow', source: 'test' }],
    );
    await agent.reply('write both');
    expect(await readFile(join(folder, 'a.txt'), 'utf8')).toBe('x\n');
    expect(existsSync(join(other, 'b.txt'))).toBe(false);
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toMatch(/read-only file system/i);
  });
});

describe.runIf(available || inCi)('a sandboxed stdio server and the secrets in the home', () => {
  let home: string;
  let secrets: McpConnections;
  const savedHome = process.env.HOME;
  beforeAll(async () => {
    // A throwaway HOME outside /tmp, given to the server as a directory it may read.
    home = await realpath(await mkdtemp('/var/tmp/parley-mcp-home-'));
    await mkdir(join(home, '.ssh'));
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'FAKE-PRIVATE-KEY\n');
    await writeFile(join(home, 'notes.txt'), 'notes\n');
    process.env.HOME = home;
    try {
      secrets = await connectMcp({
        mcpServers: {
          fs: {
            command: process.execPath,
            args: [serverScript('@modelcontextprotocol/server-filesystem'), home],
            sandbox: { network: true, writable: [] },
            trusted: true,
          },
        },
      });
    } finally {
      process.env.HOME = savedHome;
    }
  });
  afterAll(async () => {
    await secrets.close();
    await rm(home, { recursive: true, force: true });
  });

  it('cannot read ~/.ssh, even with the network, and reads the rest of the home', async () => {
    const read = (id: string, path: string) => ({
      toolCalls: [{ id, name: 'mcp__fs__read_text_file', input: { path } }],
    });
    const { agent, model } = scriptedAgent(
      [
        read('key', join(home, '.ssh', 'id_ed25519')),
        read('notes', join(home, 'notes.txt')),
        { text: 'ok' },
      ],
      secrets.tools,
      [
        {
          toolName: 'mcp__fs__read_text_file',
          ruleContent: null,
          behavior: 'allow',
          source: 'test',
        },
      ],
    );
    await agent.reply('read both');
    const seen = JSON.stringify(model.requests.at(-1)?.messages);
    expect(seen).not.toContain('FAKE-PRIVATE-KEY');
    expect(seen).toContain('notes');
    expect(seen).toMatch(/ENOENT|no such file/i);
  });
});
