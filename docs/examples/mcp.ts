// Guide example: the tools of a real MCP server (server-everything, from
// node_modules) in a Parley agent; a form the server asks for mid-call
// parks the reply as an McpElicitation call, and the answer reaches it.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Agent, AskUser, Toolkit, externalExecutionResultEvent, textOf } from '@parley/core';
import type { ToolResultBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { MCP_ELICITATION, connectMcp, mcpElicitationResult } from '@parley/mcp';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

export async function mcpExample(): Promise<{
  echoed: string;
  asked: string;
  answered: string;
  final: string;
}> {
  const mcp = await connectMcp({
    mcpServers: {
      // Spawned with node from node_modules; trusted: its readOnlyHint tools run without asking.
      everything: { command: process.execPath, args: [everything, 'stdio'], trusted: true },
    },
  });
  try {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'mcp__everything__echo', input: { message: 'hello' } }] },
      { toolCalls: [{ name: 'mcp__everything__trigger-elicitation-request', input: {} }] },
      { text: 'Thanks, noted.' },
    ]);
    const agent = new Agent({
      name: 'assistant',
      model,
      toolkit: new Toolkit([...mcp.tools, AskUser]),
      // The elicitation tool is not read-only: allow this server's tools by rule.
      permission: {
        rules: [
          {
            toolName: 'mcp__everything__*',
            ruleContent: null,
            behavior: 'allow',
            source: 'example',
          },
        ],
      },
    });

    let echoed = '';
    let asked = '';
    let answer: ToolResultBlock | undefined;
    let replyId = '';
    for await (const event of agent.replyStream('Say hello, then ask me for my details')) {
      if (event.type === 'TOOL_RESULT_TEXT_DELTA' && echoed === '') echoed = event.delta;
      if (event.type !== 'REQUIRE_EXTERNAL_EXECUTION') continue;
      replyId = event.replyId;
      for (const call of event.toolCalls) {
        if (call.name !== MCP_ELICITATION) continue;
        asked = call.input; // { server, tool, mode: 'form', message, requestedSchema }
        // A renderer shows the form; this is what the person filled in.
        answer = mcpElicitationResult(call, {
          action: 'accept',
          content: { name: 'Ada Lovelace', check: true, email: 'ada@example.test' },
        });
      }
    }
    if (answer === undefined) throw new Error('the server did not ask');
    const final = await agent.reply(
      externalExecutionResultEvent({ replyId, executionResults: [answer] }),
    );
    const last = agent.state.context.at(-1);
    const answered =
      last === undefined || typeof last.content === 'string'
        ? ''
        : JSON.stringify(
            last.content.find(
              (block) => block.type === 'tool_result' && block.name.endsWith('elicitation-request'),
            ),
          );
    return { echoed, asked, answered, final: textOf(final) };
  } finally {
    await mcp.close();
  }
}
