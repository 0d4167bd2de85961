import { z } from 'zod';
import { Agent, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type { ConfirmResult } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';

const writeNote = tool({
  name: 'write_note',
  description: 'Write a note to the notebook.',
  input: z.object({ path: z.string(), content: z.string() }),
  execute: async ({ path }) => `Wrote ${path}`,
});
const model = new ScriptedModel([
  { toolCalls: [{ name: 'write_note', input: { path: 'notes/a.txt', content: 'hello' } }] },
  { text: 'done' },
]);
const agent = new Agent({ name: 'assistant', model, toolkit: new Toolkit([writeNote]) });

for await (const event of agent.replyStream('Write a note')) {
  if (event.type !== 'REQUIRE_USER_CONFIRM') continue;
  // Parked: agent.state is JSON; store it, show the call to a person, come back later.
  const confirmResults: ConfirmResult[] = event.toolCalls.map((toolCall) => ({
    confirmed: true, // or false, with a `reason` the model will read
    toolCall, // pass back, optionally with edited `input`
    rules: toolCall.suggestedRules, // "always allow" similar calls from now on
  }));
  const final = await agent.reply(
    userConfirmResultEvent({ replyId: event.replyId, confirmResults }),
  );
  console.log(final.content); // the reply message: tool call, result, "done"
}
