import { afterEach, describe, expect, it } from 'vitest';
import { McpConfigError, connectMcp } from '../src/index.js';
import type { McpConnections } from '../src/index.js';
import { hostileServer, toolDef } from './hostile.js';
import { collect, parkedCalls, scriptedAgent } from './support.js';

let open: McpConnections | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('a hostile server: names that collide or are too long', () => {
  it('do.it and do_it would share a name: both are left out and reported, not one dropped', async () => {
    open = await connectMcp({
      mcpServers: {
        a: hostileServer({ tools: [toolDef('do.it'), toolDef('do_it'), toolDef('ok')] }),
      },
    });
    expect(open.mcpTools.map((tool) => tool.name)).toEqual(['mcp__a__ok']);
    const reason = 'left out: tools "do.it", "do_it" would all be named mcp__a__do_it';
    expect(open.problems).toEqual([
      { server: 'a', tool: 'do.it', reason },
      { server: 'a', tool: 'do_it', reason },
    ]);
  });

  it('a server named git_ is refused at load, so a rule for mcp__git__* covers git only', async () => {
    await expect(
      connectMcp({
        mcpServers: { git: hostileServer({ tools: [] }), git_: hostileServer({ tools: [] }) },
      }),
    ).rejects.toBeInstanceOf(McpConfigError);
    open = await connectMcp({
      mcpServers: {
        git: hostileServer({ tools: [toolDef('_x')] }),
        'git-x': hostileServer({ tools: [toolDef('x')] }),
      },
    });
    const rules = [
      { toolName: 'mcp__git__*', ruleContent: null, behavior: 'allow' as const, source: 'test' },
    ];
    const { agent } = scriptedAgent(
      [
        {
          toolCalls: [
            { id: 'own', name: 'mcp__git___x', input: {} },
            { id: 'other', name: 'mcp__git-x__x', input: {} },
          ],
        },
      ],
      open.tools,
      rules,
    );
    const events = await collect(agent.replyStream('go'));
    expect(parkedCalls(events, 'REQUIRE_USER_CONFIRM').map((call) => call.id)).toEqual(['other']);
  });

  it('tool names over 64 characters are shortened (hash suffix) and still run', async () => {
    const long = `a_${'really_'.repeat(12)}long_name`;
    open = await connectMcp({
      mcpServers: { srv: hostileServer({ tools: [toolDef(long), toolDef(`${long}.v2`)] }) },
    });
    const names = open.mcpTools.map((tool) => tool.name);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^mcp__srv__a_really_[a-z_]+_[0-9a-f]{8}$/);
    expect(names.every((name) => name.length === 64)).toBe(true);
    expect(open.problems).toEqual([]);
    const first = names[0] ?? '';
    const { agent } = scriptedAgent(
      [{ toolCalls: [{ id: 'c', name: first, input: {} }] }, { text: 'done' }],
      open.tools,
      [{ toolName: 'mcp__srv__*', ruleContent: null, behavior: 'allow', source: 'test' }],
    );
    await collect(agent.replyStream('go'));
    expect(JSON.stringify(agent.state.context)).toContain(`called ${long} with {}`);
  });
});
