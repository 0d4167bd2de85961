import { describe, expect, it } from 'vitest';
import { Agent, Toolkit, externalExecutionResultEvent, parseAgentState } from '@parley/core';
import type { ToolCallBlock, ToolResultBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { connectMcp, mcpElicitationResult, parseElicitationCall } from '../src/index.js';
import type { McpConnections, McpManifest } from '../src/index.js';
import { inMemoryServer, modernServer } from './in-process-server.js';
import type { ServerLog } from './in-process-server.js';
import { collect, parkedCalls, replyIdOf } from './support.js';

const allowAll = [
  { toolName: 'mcp__app__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
];

async function connect(log: ServerLog): Promise<McpConnections> {
  return connectMcp({
    mcpServers: { app: { transport: modernServer(log), protocol: '2026-07-28' } },
  });
}

function agentOn(mcp: McpConnections, model: ScriptedModel, state?: Agent['state']): Agent {
  return new Agent({
    name: 'assistant',
    model,
    toolkit: new Toolkit(mcp.tools),
    permission: { rules: allowAll },
    ...(state === undefined ? {} : { state }),
  });
}

const resultOf = (agent: Agent, id: string): ToolResultBlock | undefined => {
  const last = agent.state.context.at(-1);
  if (last === undefined || typeof last.content === 'string') return undefined;
  return last.content.find(
    (block): block is ToolResultBlock => block.type === 'tool_result' && block.id === id,
  );
};

describe('input_required (2026 revision): durable, any process can retry', () => {
  it('parks with the request state in the session; another process retries with the answer', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'd', name: 'mcp__app__deploy', input: { env: 'prod' } }] },
      { text: 'done' },
    ]);
    const first = await connect(log);
    const agent = agentOn(first, model);
    const events = await collect(agent.replyStream('deploy'));
    const [form] = parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION');
    if (form === undefined) throw new Error('did not park');
    const asked = parseElicitationCall(form);
    expect(asked).toMatchObject({
      server: 'app',
      tool: 'deploy',
      mode: 'form',
      message: 'Deploy to prod?',
      retry: { round: 0, key: 'confirm', requestState: 'deploy:prod' },
    });
    expect(first.heldCalls).toBe(0);
    const stored = JSON.stringify(agent.state);
    await first.close();

    // Another process: fresh connections, the agent from the stored JSON.
    const second = await connect(log);
    try {
      const resumed = agentOn(second, model, parseAgentState(JSON.parse(stored)));
      await collect(
        resumed.replyStream(
          externalExecutionResultEvent({
            replyId: replyIdOf(events),
            executionResults: [
              mcpElicitationResult(form, {
                action: 'accept',
                content: { confirm: true, note: 'go' },
              }),
            ],
          }),
        ),
      );
      expect(resultOf(resumed, 'd')).toMatchObject({
        state: 'success',
        output: 'deployed to prod: yes go',
      });
      expect(log.requestStates).toEqual(['deploy:prod']);
    } finally {
      await second.close();
    }
  });

  it('a declined answer reaches the server on the retry', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'd', name: 'mcp__app__deploy', input: { env: 'dev' } }] },
      { text: 'done' },
    ]);
    const mcp = await connect(log);
    try {
      const agent = agentOn(mcp, model);
      const events = await collect(agent.replyStream('deploy'));
      const [form] = parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION');
      if (form === undefined) throw new Error('did not park');
      await collect(
        agent.replyStream(
          externalExecutionResultEvent({
            replyId: replyIdOf(events),
            executionResults: [mcpElicitationResult(form, { action: 'decline' })],
          }),
        ),
      );
      expect(resultOf(agent, 'd')?.output).toBe('not deployed to dev');
    } finally {
      await mcp.close();
    }
  });
});

describe('input_required asking to open a link that is not a web link', () => {
  it('is answered decline on the retry without parking', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'l', name: 'mcp__app__link', input: {} }] },
      { text: 'done' },
    ]);
    const mcp = await connect(log);
    try {
      const agent = agentOn(mcp, model);
      const events = await collect(agent.replyStream('open it'));
      expect(parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION')).toEqual([]);
      expect(resultOf(agent, 'l')?.output).toBe('link answer: {"open":{"action":"decline"}}');
    } finally {
      await mcp.close();
    }
  });
});

describe('an elicitation that expires', () => {
  it('the server is told cancel, and the call finishes with what the server then says', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'd', name: 'mcp__app__deploy', input: { env: 'qa' } }] },
      { text: 'done' },
    ]);
    let now = new Date('2026-01-01T00:00:00Z');
    const mcp = await connect(log);
    try {
      const agent = new Agent({
        name: 'assistant',
        model,
        toolkit: new Toolkit(mcp.tools),
        permission: { rules: allowAll },
        parkTimeout: 60_000,
        clock: () => now,
      });
      const events = await collect(agent.replyStream('deploy'));
      expect(parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION')).toHaveLength(1);
      now = new Date('2026-01-01T00:05:00Z');
      await collect(agent.replyStream());
      expect(resultOf(agent, 'd')).toMatchObject({
        state: 'success',
        output: 'not deployed to qa',
      });
      expect(log.requestStates).toEqual(['deploy:qa']);
    } finally {
      await mcp.close();
    }
  });
});

describe('input_required with stored sessions (core Sessions)', () => {
  it('parks in the store; a fresh runner with fresh connections retries and finishes', async () => {
    const { InMemorySessionStore, Sessions } = await import('@parley/core');
    const log: ServerLog = { starts: 0, requestStates: [] };
    const store = new InMemorySessionStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'd', name: 'mcp__app__deploy', input: { env: 'eu' } }] },
      { text: 'done' },
    ]);
    const runner = async (mcp: McpConnections) =>
      new Sessions({
        store,
        agent: {
          name: 'assistant',
          model,
          toolkit: new Toolkit(mcp.tools),
          permission: { rules: allowAll },
        },
      });
    const first = await connect(log);
    const waiting = await (await runner(first)).reply('s1', 'deploy');
    await first.close();
    expect(waiting.finishedReason).toBeNull();
    const stored = await store.load('s1');
    const content = stored?.state.context.at(-1)?.content;
    const form = Array.isArray(content)
      ? content.find(
          (block): block is ToolCallBlock =>
            block.type === 'tool_call' && block.state === 'submitted',
        )
      : undefined;
    if (form === undefined || stored?.state.reply === null || stored === undefined)
      throw new Error('not parked');
    const second = await connect(log);
    try {
      const final = await (
        await runner(second)
      ).reply(
        's1',
        externalExecutionResultEvent({
          replyId: stored.state.reply.replyId,
          executionResults: [
            mcpElicitationResult(form, { action: 'accept', content: { confirm: true } }),
          ],
        }),
      );
      expect(final.finishedReason).toBe('completed');
      expect(JSON.stringify((await store.load('s1'))?.state.context)).toContain(
        'deployed to eu: yes',
      );
      expect(log.requestStates).toEqual(['deploy:eu']);
    } finally {
      await second.close();
    }
  });
});

describe('a server that dies mid-call', () => {
  it('the call gets an error result, the loop goes on, and the next call restarts the server', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c', name: 'mcp__app__crash', input: {} }] },
      { toolCalls: [{ id: 'e', name: 'mcp__app__echo', input: { message: 'back' } }] },
      { text: 'done' },
    ]);
    const mcp = await connectMcp({ mcpServers: { app: { transport: inMemoryServer(log) } } });
    try {
      const agent = agentOn(mcp, model);
      const events = await collect(agent.replyStream('go'));
      expect(resultOf(agent, 'c')).toMatchObject({
        state: 'error',
        output: expect.stringMatching(/^MCP server 'app': /),
      });
      expect(resultOf(agent, 'e')).toMatchObject({ state: 'success', output: 'back' });
      expect(log.starts).toBe(2);
      expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
    } finally {
      await mcp.close();
    }
  });
});

describe('failures are results, not crashes', () => {
  it("a restart that fails is the call's error result, naming the server", async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c', name: 'mcp__app__crash', input: {} }] },
      { toolCalls: [{ id: 'e', name: 'mcp__app__echo', input: { message: 'back' } }] },
      { text: 'done' },
    ]);
    const mcp = await connectMcp({ mcpServers: { app: { transport: inMemoryServer(log, 1) } } });
    try {
      const agent = agentOn(mcp, model);
      const events = await collect(agent.replyStream('go'));
      expect(resultOf(agent, 'e')).toMatchObject({
        state: 'error',
        output: "MCP server 'app': could not start: the server binary is gone",
      });
      expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
    } finally {
      await mcp.close();
    }
  });

  it('a call past callTimeoutMs is an error result', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'h', name: 'mcp__app__hang', input: {} }] },
      { text: 'done' },
    ]);
    const mcp = await connectMcp({
      mcpServers: { app: { transport: inMemoryServer(log), callTimeoutMs: 50 } },
    });
    try {
      const agent = agentOn(mcp, model);
      await collect(agent.replyStream('go'));
      expect(resultOf(agent, 'h')).toMatchObject({
        state: 'error',
        output: expect.stringMatching(/time/i),
      });
    } finally {
      await mcp.close();
    }
  });
});

describe('cancelling a reply while an MCP call runs', () => {
  it('the request is cancelled and the call ends as interrupted', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'h', name: 'mcp__app__hang', input: {} }] },
      { text: 'done' },
    ]);
    const mcp = await connectMcp({ mcpServers: { app: { transport: inMemoryServer(log) } } });
    try {
      const agent = agentOn(mcp, model);
      const controller = new AbortController();
      const events: string[] = [];
      for await (const event of agent.replyStream('go', { signal: controller.signal })) {
        events.push(event.type);
        if (event.type === 'TOOL_RESULT_START') controller.abort();
      }
      expect(resultOf(agent, 'h')?.state).toBe('interrupted');
      expect(events.at(-1)).toBe('REPLY_END');
    } finally {
      await mcp.close();
    }
  });
});

describe('tools/list_changed', () => {
  it('a tool the server adds becomes a Parley tool, and listeners hear of it', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const mcp = await connectMcp({ mcpServers: { app: { transport: inMemoryServer(log) } } });
    try {
      const heard = new Promise<string[]>((resolve) => {
        mcp.onToolsChanged((tools) => resolve(tools.map((tool) => tool.name)));
      });
      expect(mcp.tools.map((tool) => tool.name)).not.toContain('mcp__app__late');
      const model = new ScriptedModel([
        { toolCalls: [{ id: 'g', name: 'mcp__app__grow', input: {} }] },
        { text: 'done' },
      ]);
      await collect(agentOn(mcp, model).replyStream('grow'));
      expect(await heard).toContain('mcp__app__late');
      const late = mcp.tools.find((tool) => tool.name === 'mcp__app__late');
      expect(late?.description).toBe('Added later.');
    } finally {
      await mcp.close();
    }
  });
});

/** A manifest read back from JSON: tool definitions by server. */
function isManifest(value: unknown): value is McpManifest {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((tools) => Array.isArray(tools))
  );
}

describe('lazy start from a manifest', () => {
  it('a server given by the manifest starts on the first call of one of its tools', async () => {
    const log: ServerLog = { starts: 0, requestStates: [] };
    const listed = await connectMcp({ mcpServers: { app: { transport: inMemoryServer(log) } } });
    const manifest: unknown = JSON.parse(JSON.stringify(listed.manifest()));
    await listed.close();
    expect(log.starts).toBe(1);
    const mcp = await connectMcp(
      { mcpServers: { app: { transport: inMemoryServer(log) } } },
      { manifest: isManifest(manifest) ? manifest : {} },
    );
    try {
      expect(log.starts).toBe(1);
      expect(mcp.tools.map((tool) => tool.name)).toContain('mcp__app__echo');
      const model = new ScriptedModel([
        { toolCalls: [{ id: 'e', name: 'mcp__app__echo', input: { message: 'lazy' } }] },
        { text: 'done' },
      ]);
      const agent = agentOn(mcp, model);
      await collect(agent.replyStream('go'));
      expect(resultOf(agent, 'e')).toMatchObject({ state: 'success', output: 'lazy' });
      expect(log.starts).toBe(2);
    } finally {
      await mcp.close();
    }
  });
});
