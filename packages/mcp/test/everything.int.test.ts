import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, externalExecutionResultEvent, userConfirmResultEvent } from '@parley/core';
import type { AgentEvent, ToolResultBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import {
  McpElicitation,
  connectMcp,
  mcpElicitationResult,
  parseElicitationCall,
} from '../src/index.js';
import type { McpConnections } from '../src/index.js';
import {
  collect,
  everything,
  parkedCalls,
  replyIdOf,
  resultEnd,
  scriptedAgent,
} from './support.js';

let trusted: McpConnections;
let untrusted: McpConnections;

beforeAll(async () => {
  [trusted, untrusted] = await Promise.all([
    connectMcp({ mcpServers: { ev: everything(true) } }),
    connectMcp({ mcpServers: { ev: everything(false) } }),
  ]);
});
afterAll(async () => {
  await Promise.all([trusted.close(), untrusted.close()]);
});

const stored = (agent: Agent, id: string): ToolResultBlock | undefined => {
  const last = agent.state.context.at(-1);
  if (last === undefined || typeof last.content === 'string') return undefined;
  return last.content.find(
    (block): block is ToolResultBlock => block.type === 'tool_result' && block.id === id,
  );
};

describe('server-everything tools as Parley tools', () => {
  it('lists tools as mcp__<server>__<tool> with their JSON Schema, plus McpElicitation', () => {
    const names = trusted.tools.map((tool) => tool.name);
    expect(names).toContain('mcp__ev__echo');
    expect(names).toContain('mcp__ev__get-sum');
    expect(names.at(-1)).toBe('McpElicitation');
    const echo = trusted.tools.find((tool) => tool.name === 'mcp__ev__echo');
    expect(echo?.jsonSchema()).toMatchObject({ type: 'object', required: ['message'] });
    expect(echo?.jsonSchema()).not.toHaveProperty('$schema');
  });

  it('a trusted server: readOnlyHint tools run without asking (echo, get-sum)', async () => {
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: [
            { id: 'e', name: 'mcp__ev__echo', input: { message: 'hello' } },
            { id: 's', name: 'mcp__ev__get-sum', input: { a: 2, b: 40 } },
          ],
        },
        { text: 'done' },
      ],
      trusted.tools,
    );
    const events = await collect(agent.replyStream('go'));
    expect(parkedCalls(events, 'REQUIRE_USER_CONFIRM')).toEqual([]);
    expect(stored(agent, 'e')).toMatchObject({ output: 'Echo: hello', state: 'success' });
    expect(stored(agent, 's')).toMatchObject({ output: 'The sum of 2 and 40 is 42.' });
  });

  it('an untrusted server: the same read-only call asks; a confirmation runs it', async () => {
    const { agent } = scriptedAgent(
      [
        { toolCalls: [{ id: 'e', name: 'mcp__ev__echo', input: { message: 'hi' } }] },
        { text: 'ok' },
      ],
      untrusted.tools,
    );
    const first = await collect(agent.replyStream('go'));
    const [asked] = parkedCalls(first, 'REQUIRE_USER_CONFIRM');
    expect(asked?.suggestedRules).toEqual([
      { toolName: 'mcp__ev__echo', ruleContent: null, behavior: 'allow', source: 'suggested' },
    ]);
    if (asked === undefined) throw new Error('no ask');
    await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: replyIdOf(first),
          confirmResults: [{ confirmed: true, toolCall: asked }],
        }),
      ),
    );
    expect(stored(agent, 'e')).toMatchObject({ output: 'Echo: hi', state: 'success' });
  });

  it('a server-wide rule (mcp__ev__*) allows every tool of the server without asking', async () => {
    const { agent } = scriptedAgent(
      [
        { toolCalls: [{ id: 'e', name: 'mcp__ev__echo', input: { message: 'x' } }] },
        { text: 'ok' },
      ],
      untrusted.tools,
      [{ toolName: 'mcp__ev__*', ruleContent: null, behavior: 'allow', source: 'config' }],
    );
    const events = await collect(agent.replyStream('go'));
    expect(parkedCalls(events, 'REQUIRE_USER_CONFIRM')).toEqual([]);
    expect(stored(agent, 'e')?.state).toBe('success');
  });

  it('input is validated against the JSON Schema before any call', async () => {
    const { agent } = scriptedAgent(
      [{ toolCalls: [{ id: 's', name: 'mcp__ev__get-sum', input: { a: 'two' } }] }, { text: 'ok' }],
      trusted.tools,
    );
    await collect(agent.replyStream('go'));
    const result = stored(agent, 's');
    expect(result?.state).toBe('error');
    expect(result?.output).toMatch(/^Input validation failed for tool 'mcp__ev__get-sum': /);
  });

  it('images become data blocks, embedded resources text, structured content metadata', async () => {
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: [
            { id: 'img', name: 'mcp__ev__get-tiny-image', input: {} },
            {
              id: 'res',
              name: 'mcp__ev__get-resource-reference',
              input: { resourceType: 'Text', resourceId: 1 },
            },
            { id: 'st', name: 'mcp__ev__get-structured-content', input: { location: 'Chicago' } },
          ],
        },
        { text: 'ok' },
      ],
      trusted.tools,
    );
    await collect(agent.replyStream('go'));
    const image = stored(agent, 'img')?.output;
    expect(
      Array.isArray(image) &&
        image.some((block) => block.type === 'data' && block.source.mediaType === 'image/png'),
    ).toBe(true);
    const resource = stored(agent, 'res')?.output;
    const resourceText = typeof resource === 'string' ? resource : JSON.stringify(resource);
    expect(resourceText).toContain('[resource ');
    expect(stored(agent, 'st')?.metadata?.['structuredContent']).toMatchObject({
      temperature: expect.any(Number),
    });
  });
});

/** Runs trigger-elicitation-request until it parks for McpElicitation. */
async function parkOnForm(connections: McpConnections) {
  const steps = [
    { toolCalls: [{ id: 'el', name: 'mcp__ev__trigger-elicitation-request', input: {} }] },
    { text: 'done' },
  ];
  const model = new ScriptedModel(steps);
  const { Toolkit } = await import('@parley/core');
  const toolkit = new Toolkit(connections.tools);
  const rules = [
    { toolName: 'mcp__ev__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
  ];
  const agent = new Agent({ name: 'assistant', model, toolkit, permission: { rules } });
  const events = await collect(agent.replyStream('ask me'));
  const [form] = parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION');
  if (form === undefined) throw new Error(`did not park: ${events.map((e) => e.type).join(',')}`);
  return { agent, events, form, model, toolkit };
}

const answer = (events: AgentEvent[], result: ToolResultBlock) =>
  externalExecutionResultEvent({ replyId: replyIdOf(events), executionResults: [result] });

describe('form elicitation through parking (held-open request, server-everything)', () => {
  it('parks with an McpElicitation call carrying server, tool, message and schema', async () => {
    const { form, agent, events } = await parkOnForm(trusted);
    const input = parseElicitationCall(form);
    expect(input).toMatchObject({
      server: 'ev',
      tool: 'trigger-elicitation-request',
      mode: 'form',
    });
    expect(input.message).toMatch(/provide inputs/);
    expect(input.requestedSchema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string' } },
    });
    expect(form.name).toBe(McpElicitation.name);
    expect(trusted.heldCalls).toBe(1);
    await collect(
      agent.replyStream(answer(events, mcpElicitationResult(form, { action: 'cancel' }))),
    );
    expect(trusted.heldCalls).toBe(0);
  });

  it('accept: the content reaches the server, and its result reaches the model (agent revived from JSON)', async () => {
    const { form, agent, events, model, toolkit } = await parkOnForm(trusted);
    const revived = new Agent({
      name: 'assistant',
      model,
      toolkit,
      state: JSON.parse(JSON.stringify(agent.state)),
    });
    const content = { name: 'Ada Lovelace', check: true, email: 'ada@example.test', integer: 7 };
    const after = await collect(
      revived.replyStream(
        answer(events, mcpElicitationResult(form, { action: 'accept', content })),
      ),
    );
    expect(resultEnd(after, form.id)?.metadata).toEqual({ action: 'accept', content });
    const output = JSON.stringify(stored(revived, 'el')?.output);
    expect(output).toContain('User provided the requested information');
    expect(output).toContain('Ada Lovelace');
    expect(stored(revived, 'el')?.state).toBe('success');
  });

  it('decline and cancel reach the server as such', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { form, agent, events } = await parkOnForm(trusted);
      await collect(agent.replyStream(answer(events, mcpElicitationResult(form, { action }))));
      const output = JSON.stringify(stored(agent, 'el')?.output).toLowerCase();
      expect(output).toContain(action === 'decline' ? 'declined' : 'cancel');
    }
  });

  it('content that does not fit the schema is refused before anything is applied', async () => {
    const { form, agent, events } = await parkOnForm(trusted);
    const before = JSON.stringify(agent.state);
    expect(() =>
      mcpElicitationResult(form, { action: 'accept', content: { integer: 'many' } }),
    ).toThrow(/does not fit the requested schema/);
    const bad: ToolResultBlock = {
      type: 'tool_result',
      id: form.id,
      name: form.name,
      output: 'x',
      state: 'success',
      metadata: { action: 'accept', content: { check: 'yes' } },
    };
    await expect(collect(agent.replyStream(answer(events, bad)))).rejects.toMatchObject({
      code: 'invalid_tool_result',
    });
    expect(JSON.stringify(agent.state)).toBe(before);
    await collect(
      agent.replyStream(answer(events, mcpElicitationResult(form, { action: 'cancel' }))),
    );
  });

  it('an interrupt closes the call; the held request is answered cancel when the connections close', async () => {
    const connections = await connectMcp({ mcpServers: { ev: everything(true) } });
    const { agent, events } = await parkOnForm(connections);
    const { userInterruptEvent } = await import('@parley/core');
    const after = await collect(
      agent.replyStream(userInterruptEvent({ replyId: replyIdOf(events) })),
    );
    expect(resultEnd(after, 'el')?.state).toBe('interrupted');
    expect(connections.heldCalls).toBe(1);
    await connections.close();
    expect(connections.heldCalls).toBe(0);
  });

  it('the answer reaching another process (no held request): the call ends as interrupted', async () => {
    const { form, agent, events, model } = await parkOnForm(trusted);
    const other = await connectMcp({ mcpServers: { ev: everything(true) } });
    try {
      const { Toolkit } = await import('@parley/core');
      const elsewhere = new Agent({
        name: 'assistant',
        model,
        toolkit: new Toolkit(other.tools),
        state: JSON.parse(JSON.stringify(agent.state)),
      });
      await collect(
        elsewhere.replyStream(answer(events, mcpElicitationResult(form, { action: 'decline' }))),
      );
      const result = stored(elsewhere, 'el');
      expect(result?.state).toBe('interrupted');
      expect(result?.output).toMatch(/held this call open in a process that is gone/);
    } finally {
      await other.close();
      await collect(
        agent.replyStream(answer(events, mcpElicitationResult(form, { action: 'cancel' }))),
      );
    }
  });
});

describe('URL-mode elicitation (server-everything)', () => {
  it('parks with the link; done (accept) reaches the server', async () => {
    const { Toolkit } = await import('@parley/core');
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: 'u',
            name: 'mcp__ev__trigger-url-elicitation',
            input: { url: 'https://example.test/authorize', message: 'Please sign in' },
          },
        ],
      },
      { text: 'done' },
    ]);
    const rules = [
      { toolName: 'mcp__ev__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
    ];
    const agent = new Agent({
      name: 'assistant',
      model,
      toolkit: new Toolkit(trusted.tools),
      permission: { rules },
    });
    const events = await collect(agent.replyStream('sign in'));
    const [link] = parkedCalls(events, 'REQUIRE_EXTERNAL_EXECUTION');
    if (link === undefined) throw new Error('did not park');
    expect(parseElicitationCall(link)).toMatchObject({
      mode: 'url',
      url: 'https://example.test/authorize',
      message: 'Please sign in',
      elicitationId: expect.any(String),
    });
    expect(() => mcpElicitationResult(link, { action: 'accept', content: { a: 'b' } })).toThrow(
      /carries no content/,
    );
    await collect(
      agent.replyStream(answer(events, mcpElicitationResult(link, { action: 'accept' }))),
    );
    const result = stored(agent, 'u');
    expect(result?.state).toBe('success');
    expect(JSON.stringify(result?.output).toLowerCase()).toContain('accept');
  });
});
