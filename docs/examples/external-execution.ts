// Guide example: an external tool parks the reply until its result comes
// back, possibly from another process (the state is plain JSON).
import { z } from 'zod';
import { Agent, Toolkit, externalExecutionResultEvent, textOf, tool } from '@parley/core';
import type { AgentState, ToolResultBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';

const deploy = tool({
  name: 'deploy',
  description: 'Deploy the site. An operator runs it and reports the URL.',
  input: z.object({ env: z.enum(['staging', 'production']) }),
  readOnly: true, // asking for it changes nothing here; the operator decides
  external: true,
  outputMetadata: z.object({ url: z.string() }),
});

export async function externalExecutionExample(): Promise<{ answer: string; requested: string[] }> {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'deploy', input: { env: 'staging' } }] },
    { text: 'Staging is live at https://staging.example.test.' },
  ]);
  const toolkit = new Toolkit([deploy]);
  const first = new Agent({ name: 'assistant', model, toolkit });

  const requested: string[] = [];
  let results: ToolResultBlock[] = [];
  let replyId = '';
  for await (const event of first.replyStream('Deploy to staging')) {
    if (event.type === 'REQUIRE_EXTERNAL_EXECUTION') {
      replyId = event.replyId;
      results = event.toolCalls.map((call) => {
        requested.push(`${call.name} ${call.input}`);
        return {
          type: 'tool_result',
          id: call.id,
          name: call.name,
          output: 'Deployed.',
          state: 'success',
          metadata: { url: 'https://staging.example.test' },
        };
      });
    }
  }
  // The parked state survives the process: store it as JSON, load it anywhere.
  const saved = JSON.stringify(first.state);
  const second = new Agent({
    name: 'assistant',
    model,
    toolkit,
    state: JSON.parse(saved) as AgentState,
  });
  const final = await second.reply(
    externalExecutionResultEvent({ replyId, executionResults: results }),
  );
  return { answer: textOf(final), requested };
}
