import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '@parley/core';
import type { ToolResultBlock } from '@parley/core';
import { connectMcp } from '../src/index.js';
import type { McpConnections } from '../src/index.js';
import { hostileServer, toolDef } from './hostile.js';
import { collect, resultEnd, scriptedAgent } from './support.js';

let open: McpConnections | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const allowAll = [
  { toolName: 'mcp__evil__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
];

function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

async function runTools(scenario: Parameters<typeof hostileServer>[0], tools: string[]) {
  open = await connectMcp({ mcpServers: { evil: hostileServer(scenario) } });
  const { agent } = scriptedAgent(
    [
      { toolCalls: tools.map((name) => ({ id: name, name: `mcp__evil__${name}`, input: {} })) },
      { text: 'done' },
    ],
    open.tools,
    allowAll,
  );
  const events = await collect(agent.replyStream('go'));
  const results = agent.state.context.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'),
  );
  return { agent, events, result: (id: string) => results.find((block) => block.id === id) };
}

describe('a hostile server: results are capped before they reach the context', () => {
  it('a 9 MB text result is cut to about 30k characters with a "truncated: N bytes" note', async () => {
    const huge = `start ${'x'.repeat(9 * 1024 * 1024)} end`;
    const { result } = await runTools(
      {
        tools: [toolDef('flood'), toolDef('mid')],
        results: {
          flood: { content: [{ type: 'text', text: huge }] },
          mid: { content: [{ type: 'text', text: 'y'.repeat(100_000) }] },
        },
      },
      ['flood', 'mid'],
    );
    const flood = result('flood');
    expect(typeof flood?.output).toBe('string');
    const text = typeof flood?.output === 'string' ? flood.output : '';
    expect(text.length).toBeLessThan(30_200);
    expect(text.startsWith('start xxx')).toBe(true);
    expect(text.endsWith('xxx end')).toBe(true);
    expect(text).toMatch(/\[\.\.\. truncated: \d+ bytes \(\d+ characters\) cut \.\.\.\]/);
    // Too large to keep whole; a smaller cut result keeps its whole text in metadata.
    expect(flood?.metadata).toEqual({
      truncated: { characters: huge.length - 30_000, bytes: huge.length - 30_000 },
    });
    expect(result('mid')?.metadata?.['fullText']).toHaveLength(100_000);
  });

  it('an image over the size cap becomes a note', async () => {
    const { result } = await runTools(
      {
        tools: [toolDef('img')],
        results: {
          img: {
            content: [
              { type: 'image', data: 'A'.repeat(6 * 1024 * 1024), mimeType: 'image/png' },
              { type: 'image', data: 'aW1n', mimeType: 'image/png' },
            ],
          },
        },
      },
      ['img'],
    );
    const output = result('img')?.output;
    expect(Array.isArray(output) ? output.map((block) => block.type) : output).toEqual([
      'text',
      'data',
    ]);
    expect(JSON.stringify(output)).toMatch(/\[image\/png of about \d+ bytes left out/);
  });

  it('structured content nested 20,000 deep is left out: the session still saves', async () => {
    const { agent, events, result } = await runTools(
      {
        tools: [toolDef('deep')],
        raw: {
          deep: `{"content":[{"type":"text","text":"deep"}],"structuredContent":${deepJson(20_000)}}`,
        },
      },
      ['deep'],
    );
    expect(resultEnd(events, 'deep')).toMatchObject({ state: 'success' });
    expect(result('deep')?.metadata).toEqual({
      structuredContentLeftOut: 'nested deeper than 64 levels',
    });
    const store = new InMemorySessionStore();
    await expect(store.save('s', agent.state, 0)).resolves.toBe(1);
  });

  it('an elicitation form nested 20,000 deep is declined, not parked', async () => {
    // Form properties must be flat, but other keys of the schema are passed on as they come.
    const deepSchema = `{"type":"object","properties":{},"x-extra":${deepJson(20_000)}}`;
    open = await connectMcp({
      mcpServers: {
        evil: hostileServer({
          tools: [toolDef('ask')],
          elicitRaw: { ask: `{"message":"m","requestedSchema":${deepSchema}}` },
        }),
      },
    });
    const { agent } = scriptedAgent(
      [{ toolCalls: [{ id: 'a', name: 'mcp__evil__ask', input: {} }] }, { text: 'done' }],
      open.tools,
      allowAll,
    );
    const events = await collect(agent.replyStream('go'));
    expect(events.some((event) => event.type === 'REQUIRE_EXTERNAL_EXECUTION')).toBe(false);
    expect(JSON.stringify(agent.state.context)).toContain('answer: {\\"action\\":\\"decline\\"}');
    await expect(new InMemorySessionStore().save('s', agent.state, 0)).resolves.toBe(1);
  });
});
