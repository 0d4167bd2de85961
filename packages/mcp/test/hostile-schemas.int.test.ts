import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../src/index.js';
import type { McpConnections } from '../src/index.js';
import { hostileServer, toolDef } from './hostile.js';
import { collect, resultEnd, scriptedAgent } from './support.js';

const allowAll = [
  { toolName: 'mcp__evil__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
];

let open: McpConnections | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function connectEvil(scenario: Parameters<typeof hostileServer>[0]) {
  open = await connectMcp({ mcpServers: { evil: hostileServer(scenario) } });
  return open;
}

const loop = {
  properties: { a: { $ref: '#/$defs/x' } },
  $defs: { x: { $ref: '#/$defs/y' }, y: { $ref: '#/$defs/x' } },
};

describe('a hostile server: schemas are compiled once, inside a try', () => {
  it('a $ref loop makes that tool unavailable with a reason; the reply goes on', async () => {
    const mcp = await connectEvil({ tools: [toolDef('loop', loop), toolDef('fine')] });
    expect(mcp.problems).toEqual([
      {
        server: 'evil',
        tool: 'loop',
        reason: expect.stringMatching(/^unavailable: its JSON Schema cannot be used \(/),
      },
    ]);
    const looped = mcp.tools.find((tool) => tool.name === 'mcp__evil__loop');
    expect(looped?.jsonSchema()).toEqual({ type: 'object' });
    expect(looped?.description).toMatch(/^\(Unavailable: its JSON Schema cannot be used/);
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: [
            { id: 'l', name: 'mcp__evil__loop', input: { a: 1 } },
            { id: 'f', name: 'mcp__evil__fine', input: {} },
          ],
        },
        { text: 'done' },
      ],
      mcp.tools,
      allowAll,
    );
    const events = await collect(agent.replyStream('go'));
    expect(resultEnd(events, 'l')).toMatchObject({ state: 'error' });
    expect(JSON.stringify(agent.state.context)).toContain(
      'the tool is unavailable: its JSON Schema',
    );
    expect(resultEnd(events, 'f')).toMatchObject({ state: 'success' });
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END' });
  });

  it('catastrophic patterns ((a+)+$, also under allOf) are checked in linear time', async () => {
    const evil = '(a+)+$';
    const mcp = await connectEvil({
      tools: [
        toolDef('p', { properties: { s: { type: 'string', pattern: evil } } }),
        toolDef('q', { allOf: [{ properties: { s: { type: 'string', pattern: '^(a|aa)+$' } } }] }),
        toolDef('r', { properties: { s: { type: 'string', pattern: '^([a-z]+)*[0-9]$' } } }),
      ],
    });
    expect(mcp.problems).toEqual([]);
    const hostileInput = { s: `${'a'.repeat(33)}!` };
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: ['p', 'q', 'r'].map((name) => ({
            id: name,
            name: `mcp__evil__${name}`,
            input: hostileInput,
          })),
        },
        { toolCalls: [{ id: 'ok', name: 'mcp__evil__p', input: { s: 'aaa' } }] },
        { text: 'done' },
      ],
      mcp.tools,
      allowAll,
    );
    const events = await collect(agent.replyStream('go'));
    for (const id of ['p', 'q', 'r'])
      expect(resultEnd(events, id)).toMatchObject({ state: 'error' });
    expect(resultEnd(events, 'ok')).toMatchObject({ state: 'success' });
  });

  it('an output schema pattern is checked in linear time too (structuredContent)', async () => {
    const outputSchema = {
      type: 'object',
      properties: { s: { type: 'string', pattern: '(a+)+$' } },
    };
    const mcp = await connectEvil({
      tools: [{ ...toolDef('out'), outputSchema }],
      results: {
        out: {
          content: [{ type: 'text', text: 'x' }],
          structuredContent: { s: `${'a'.repeat(33)}!` },
        },
      },
    });
    const { agent } = scriptedAgent(
      [{ toolCalls: [{ id: 'o', name: 'mcp__evil__out', input: {} }] }, { text: 'done' }],
      mcp.tools,
      allowAll,
    );
    const events = await collect(agent.replyStream('go'));
    expect(resultEnd(events, 'o')).toMatchObject({ state: 'error' });
    expect(JSON.stringify(agent.state.context)).toMatch(/must match pattern/);
  });

  it('a pattern RE2 cannot read (look-ahead) makes the tool unavailable, not slow', async () => {
    const mcp = await connectEvil({
      tools: [toolDef('look', { properties: { s: { type: 'string', pattern: '^(?=a)a+$' } } })],
    });
    expect(mcp.problems[0]?.reason).toMatch(/^unavailable: .*\(\?=/);
  });

  it("each server has its own schemas: the same $id does not replace another server's", async () => {
    const shared = (type: string) =>
      toolDef('t', {
        $id: 'https://schemas.test/shared.json',
        properties: { v: { type } },
        required: ['v'],
      });
    open = await connectMcp({
      mcpServers: {
        a: hostileServer({ tools: [shared('string')] }),
        b: hostileServer({ tools: [shared('number')] }),
      },
    });
    expect(open.problems).toEqual([]);
    const byName = (name: string) => open?.mcpTools.find((tool) => tool.name === name);
    expect(byName('mcp__a__t')?.inputSchema.safeParse({ v: 'x' }).success).toBe(true);
    expect(byName('mcp__a__t')?.inputSchema.safeParse({ v: 1 }).success).toBe(false);
    expect(byName('mcp__b__t')?.inputSchema.safeParse({ v: 1 }).success).toBe(true);
    expect(byName('mcp__b__t')?.inputSchema.safeParse({ v: 'x' }).success).toBe(false);
  });

  it('schemas are refreshed on tools/list_changed, and compiled once per listing', async () => {
    const mcp = await connectEvil({
      tools: [toolDef('swap'), toolDef('t', { properties: { v: { type: 'string' } } })],
      toolsAfter: [toolDef('t', { properties: { v: { type: 'number' } } })],
    });
    const t = mcp.mcpTools.find((tool) => tool.name === 'mcp__evil__t');
    const before = t?.inputSchema;
    expect(before?.safeParse({ v: 'x' }).success).toBe(true);
    const changed = new Promise((resolve) => mcp.onToolsChanged(resolve));
    const { agent } = scriptedAgent(
      [{ toolCalls: [{ id: 's', name: 'mcp__evil__swap', input: {} }] }, { text: 'done' }],
      mcp.tools,
      allowAll,
    );
    await collect(agent.replyStream('go'));
    await changed;
    expect(t?.inputSchema.safeParse({ v: 1 }).success).toBe(true);
    expect(t?.inputSchema.safeParse({ v: 'x' }).success).toBe(false);
  });
});

describe('a hostile server: descriptions and schemas are capped', () => {
  it('a 1.2 MB description is trimmed to 8 KB; a schema over 64 KB leaves the tool out', async () => {
    const huge = 'x'.repeat(1_200_000);
    const bigSchema = { properties: { v: { type: 'string', description: 'y'.repeat(70_000) } } };
    const mcp = await connectEvil({
      tools: [{ ...toolDef('chatty'), description: huge }, toolDef('heavy', bigSchema)],
    });
    const chatty = mcp.mcpTools.find((tool) => tool.name === 'mcp__evil__chatty');
    expect(chatty?.description.length).toBeLessThanOrEqual(8 * 1024 + 30);
    expect(chatty?.description).toMatch(/\[description trimmed\]$/);
    expect(mcp.mcpTools.map((tool) => tool.name)).toEqual(['mcp__evil__chatty']);
    expect(mcp.problems).toEqual([
      { server: 'evil', tool: 'chatty', reason: expect.stringMatching(/trimmed to 8192$/) },
      {
        server: 'evil',
        tool: 'heavy',
        reason: expect.stringMatching(/^left out: .*at most 65536/),
      },
    ]);
    expect(mcp.manifest()['evil']?.[0]?.description?.length).toBeLessThan(8300);
  });
});
