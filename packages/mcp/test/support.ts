import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Agent, Toolkit } from '@parley/core';
import type { AgentEvent, AnyTool, PermissionRule, ToolCallBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import type { ScriptedStep } from '@parley/core/testing';

const require = createRequire(import.meta.url);

/** The entry script of an MCP server package from node_modules (run with `node`, never npx). */
export function serverScript(
  name: '@modelcontextprotocol/server-everything' | '@modelcontextprotocol/server-filesystem',
): string {
  return join(dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');
}

/** server-everything over stdio. */
export const everything = (trusted: boolean) => ({
  command: process.execPath,
  args: [serverScript('@modelcontextprotocol/server-everything'), 'stdio'],
  trusted,
});

/** Drains a stream into an array. */
export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The tool calls of the REQUIRE_* events of one type. */
export function parkedCalls(
  events: AgentEvent[],
  type: 'REQUIRE_USER_CONFIRM' | 'REQUIRE_EXTERNAL_EXECUTION',
): ToolCallBlock[] {
  return events.flatMap((event) => (event.type === type ? event.toolCalls : []));
}

/** The reply id of a run's events. */
export function replyIdOf(events: AgentEvent[]): string {
  const first = events[0];
  if (first === undefined) throw new Error('no events');
  return first.replyId;
}

/** The TOOL_RESULT_END of a call. */
export function resultEnd(events: AgentEvent[], toolCallId: string) {
  return events.find(
    (event): event is Extract<AgentEvent, { type: 'TOOL_RESULT_END' }> =>
      event.type === 'TOOL_RESULT_END' && event.toolCallId === toolCallId,
  );
}

/** An agent on a scripted model with the given tools. */
export function scriptedAgent(
  steps: ScriptedStep[],
  tools: AnyTool[],
  rules: PermissionRule[] = [],
): { agent: Agent; model: ScriptedModel; toolkit: Toolkit } {
  const model = new ScriptedModel(steps);
  const toolkit = new Toolkit(tools);
  const agent = new Agent({ name: 'assistant', model, toolkit, permission: { rules } });
  return { agent, model, toolkit };
}
