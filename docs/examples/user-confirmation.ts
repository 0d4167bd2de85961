// Guide example: pause for the user's confirmation, accept the suggested
// rule, and see the next matching call run without asking.
import { z } from 'zod';
import { Agent, Toolkit, textOf, tool, userConfirmResultEvent } from '@parley/core';
import type { ConfirmResult } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';

export async function userConfirmationExample(): Promise<{
  written: string[];
  answer: string;
  asked: number;
}> {
  const written: string[] = [];
  const writeNote = tool({
    name: 'write_note',
    description: 'Write a note to the notebook.',
    input: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path, content }) => {
      written.push(path);
      return `Wrote ${content.length} characters to ${path}`;
    },
  });
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'write_note', input: { path: 'notes/a.txt', content: 'hello' } }] },
    { toolCalls: [{ name: 'write_note', input: { path: 'notes/b.txt', content: 'again' } }] },
    { text: 'Both notes are written.' },
  ]);
  const agent = new Agent({ name: 'assistant', model, toolkit: new Toolkit([writeNote]) });

  let asked = 0;
  let input: Parameters<Agent['replyStream']>[0] = 'Write two notes';
  let answer = '';
  while (input !== undefined) {
    const next: ConfirmResult[] = [];
    let replyId = '';
    for await (const event of agent.replyStream(input)) {
      if (event.type === 'REQUIRE_USER_CONFIRM') {
        asked += 1;
        replyId = event.replyId;
        for (const toolCall of event.toolCalls) {
          // Confirm, and accept the suggested rules so similar calls run unasked.
          next.push({ confirmed: true, toolCall, rules: toolCall.suggestedRules });
        }
      }
      if (event.type === 'REPLY_END') answer = textOf(agent.state.context.at(-1)!);
    }
    input = next.length > 0 ? userConfirmResultEvent({ replyId, confirmResults: next }) : undefined;
  }
  return { written, answer, asked };
}
