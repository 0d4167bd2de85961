import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine, userConfirmResultEvent } from '@parley/core';
import type { ToolResultBlock } from '@parley/core';
import { connectMcp } from '../src/index.js';
import type { McpConnections } from '../src/index.js';
import { collect, parkedCalls, replyIdOf, scriptedAgent, serverScript } from './support.js';

let folder: string;
let mcp: McpConnections;

beforeAll(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), 'parley-mcp-fs-')));
  await writeFile(join(folder, 'notes.txt'), 'first line\n');
  mcp = await connectMcp({
    mcpServers: {
      fs: {
        command: process.execPath,
        args: [serverScript('@modelcontextprotocol/server-filesystem'), folder],
        trusted: true,
      },
    },
  });
});
afterAll(async () => {
  await mcp.close();
  await rm(folder, { recursive: true, force: true });
});

const resultOf = (content: unknown, id: string): ToolResultBlock | undefined =>
  Array.isArray(content)
    ? content.find(
        (block): block is ToolResultBlock =>
          typeof block === 'object' &&
          block !== null &&
          block.type === 'tool_result' &&
          block.id === id,
      )
    : undefined;

describe('server-filesystem under the permission engine (trusted server)', () => {
  it('read tools are allowed without asking (readOnlyHint of a trusted server)', async () => {
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: [
            {
              id: 'r',
              name: 'mcp__fs__read_text_file',
              input: { path: join(folder, 'notes.txt') },
            },
          ],
        },
        { text: 'ok' },
      ],
      mcp.tools,
    );
    const events = await collect(agent.replyStream('read it'));
    expect(parkedCalls(events, 'REQUIRE_USER_CONFIRM')).toEqual([]);
    expect(resultOf(agent.state.context.at(-1)?.content, 'r')).toMatchObject({
      state: 'success',
      output: 'first line\n',
    });
  });

  it('writes ask, and say the tool may change data; the engine tells without running anything', async () => {
    const write = mcp.mcpTools.find((tool) => tool.name === 'mcp__fs__write_file');
    if (write === undefined) throw new Error('no write_file');
    const decision = await new PermissionEngine().check(write, {
      path: join(folder, 'x'),
      content: '',
    });
    expect(decision.behavior).toBe('ask');
    expect(write.isDestructive()).toBe(true);
    expect(decision.message).toBe(
      'Permission required for mcp__fs__write_file (the server says this tool may change or delete data)',
    );
    expect(decision.decisionReason).toBe('the MCP server says this tool may change or delete data');
    expect(decision.suggestedRules).toEqual([
      {
        toolName: 'mcp__fs__write_file',
        ruleContent: null,
        behavior: 'allow',
        source: 'suggested',
      },
    ]);
  });

  it('a denied write leaves the files untouched; a confirmed one writes', async () => {
    const target = join(folder, 'notes.txt');
    const steps = [
      {
        toolCalls: [
          { id: 'w', name: 'mcp__fs__write_file', input: { path: target, content: 'changed' } },
        ],
      },
      { text: 'ok' },
    ];
    const denied = scriptedAgent(steps, mcp.tools).agent;
    const first = await collect(denied.replyStream('write'));
    const [asked] = parkedCalls(first, 'REQUIRE_USER_CONFIRM');
    if (asked === undefined) throw new Error('no ask');
    await collect(
      denied.replyStream(
        userConfirmResultEvent({
          replyId: replyIdOf(first),
          confirmResults: [{ confirmed: false, toolCall: asked }],
        }),
      ),
    );
    expect(resultOf(denied.state.context.at(-1)?.content, 'w')?.state).toBe('denied');
    expect(await readFile(target, 'utf8')).toBe('first line\n');

    const allowed = scriptedAgent(steps, mcp.tools).agent;
    const again = await collect(allowed.replyStream('write'));
    const [call] = parkedCalls(again, 'REQUIRE_USER_CONFIRM');
    if (call === undefined) throw new Error('no ask');
    await collect(
      allowed.replyStream(
        userConfirmResultEvent({
          replyId: replyIdOf(again),
          confirmResults: [{ confirmed: true, toolCall: call }],
        }),
      ),
    );
    expect(await readFile(target, 'utf8')).toBe('changed');
  });

  it('a server-wide deny rule beats the trusted read-only hint', async () => {
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: [
            {
              id: 'r',
              name: 'mcp__fs__read_text_file',
              input: { path: join(folder, 'notes.txt') },
            },
          ],
        },
        { text: 'ok' },
      ],
      mcp.tools,
      [{ toolName: 'mcp__fs__*', ruleContent: null, behavior: 'deny', source: 'config' }],
    );
    await collect(agent.replyStream('read'));
    expect(resultOf(agent.state.context.at(-1)?.content, 'r')).toMatchObject({
      state: 'denied',
      output: 'Permission to use mcp__fs__read_text_file has been denied',
    });
  });
});
