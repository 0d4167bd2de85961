import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { externalExecutionResultEvent } from '@parley/core';
import { connectMcp, mcpElicitationResult } from '../src/index.js';
import { collect, parkedCalls, replyIdOf, scriptedAgent, serverScript } from './support.js';

const children: ChildProcess[] = [];

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over HTTP (`sse` or `streamableHttp`), once it says it listens. */
async function startEverything(mode: 'sse' | 'streamableHttp'): Promise<number> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [serverScript('@modelcontextprotocol/server-everything'), mode],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`server-everything ${mode} exited with ${code}`)),
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      if (/listening|running/i.test(String(chunk))) resolve();
    });
  });
  return port;
}

afterAll(() => {
  for (const child of children) child.kill();
});

const allowAll = [
  { toolName: 'mcp__web__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
];

describe('remote servers by url', () => {
  it('Streamable HTTP: tools run, and a form elicitation parks and is answered', async () => {
    const port = await startEverything('streamableHttp');
    const mcp = await connectMcp({ mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp` } } });
    try {
      const { agent } = scriptedAgent(
        [
          {
            toolCalls: [
              { id: 'e', name: 'mcp__web__echo', input: { message: 'over http' } },
              { id: 'el', name: 'mcp__web__trigger-elicitation-request', input: {} },
            ],
          },
          { text: 'done' },
        ],
        mcp.tools,
        allowAll,
      );
      const events = await collect(agent.replyStream('go'));
      const [form] = parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION');
      if (form === undefined) throw new Error('did not park');
      const after = await collect(
        agent.replyStream(
          externalExecutionResultEvent({
            replyId: replyIdOf(events),
            executionResults: [mcpElicitationResult(form, { action: 'decline' })],
          }),
        ),
      );
      expect(after.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
      const text = JSON.stringify(agent.state.context.at(-1)?.content);
      expect(text).toContain('Echo: over http');
      expect(text.toLowerCase()).toContain('declined');
    } finally {
      await mcp.close();
    }
  });

  it('an SSE-only server: Streamable HTTP fails, the SSE fallback connects', async () => {
    const port = await startEverything('sse');
    const logged: string[] = [];
    const logger = {
      debug() {},
      info: (message: string) => logged.push(message),
      warn() {},
      error() {},
    };
    const mcp = await connectMcp(
      { mcpServers: { web: { url: `http://127.0.0.1:${port}/sse` } } },
      { logger },
    );
    expect(logged).toContain('Streamable HTTP failed; trying SSE');
    try {
      const { agent } = scriptedAgent(
        [
          { toolCalls: [{ id: 'e', name: 'mcp__web__echo', input: { message: 'over sse' } }] },
          { text: 'done' },
        ],
        mcp.tools,
        allowAll,
      );
      await collect(agent.replyStream('go'));
      expect(JSON.stringify(agent.state.context.at(-1)?.content)).toContain('Echo: over sse');
    } finally {
      await mcp.close();
    }
  });
});
