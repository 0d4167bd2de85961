// The seed's human-in-the-loop flow, end to end and offline: a scripted model
// asks to write notes (confirmed, with "always allow"), to delete one (denied,
// with a reason), asks the user a question (AskUser), and hands a deploy to an
// operator (external execution). Every pause is answered from a script, and
// the parked state is revived from JSON each time, as a server would.
import { z } from 'zod';
import {
  Agent,
  AskUser,
  Toolkit,
  askUserResult,
  externalExecutionResultEvent,
  tool,
  userConfirmResultEvent,
} from '@parley/core';
import type { AgentState, InputEvent, ReplyInput, ToolCallBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { describeEvent } from './describe-event.js';

const notes = new Map<string, string>();
const writeNote = tool({
  name: 'write_note',
  description: 'Write a note.',
  input: z.object({ path: z.string(), content: z.string() }),
  execute: ({ path, content }) => {
    notes.set(path, content);
    return `Wrote ${content.length} characters to ${path}`;
  },
});
const deleteNote = tool({
  name: 'delete_note',
  description: 'Delete a note.',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => (notes.delete(path) ? `Deleted ${path}` : `No note at ${path}`),
});
const deploy = tool({
  name: 'deploy',
  description: 'Deploy the site; an operator runs it.',
  input: z.object({ env: z.string() }),
  readOnly: true,
  external: true,
});

const model = new ScriptedModel(
  [
    {
      thinking: 'The user wants notes, a cleanup and a deploy.',
      text: 'I will write the plan first.',
      toolCalls: [
        { name: 'write_note', input: { path: 'notes/plan.md', content: '# Plan\n- ship it' } },
      ],
    },
    { toolCalls: [{ name: 'write_note', input: { path: 'notes/todo.md', content: '- deploy' } }] },
    { toolCalls: [{ name: 'delete_note', input: { path: 'notes/draft.md' } }] },
    {
      text: 'Understood, I keep the draft. One question before deploying.',
      toolCalls: [
        {
          name: 'AskUser',
          input: {
            questions: [
              {
                question: 'Where should I deploy?',
                header: 'Target',
                options: [
                  { label: 'Staging (Recommended)', description: 'Safe to try things.' },
                  { label: 'Production', description: 'Visible to every user.' },
                ],
              },
            ],
          },
        },
      ],
    },
    { toolCalls: [{ name: 'deploy', input: { env: 'staging' } }] },
    { text: 'Done: the plan and todo are written, the draft is kept, and staging is live.' },
  ],
  { chunkSize: 12 },
);
const toolkit = new Toolkit([writeNote, deleteNote, deploy, AskUser]);

/** The scripted person: how each pause is answered. */
function answer(kind: 'confirm' | 'external', replyId: string, calls: ToolCallBlock[]): InputEvent {
  if (kind === 'confirm') {
    return userConfirmResultEvent({
      replyId,
      confirmResults: calls.map((toolCall) => {
        if (toolCall.name === 'delete_note') {
          console.log(`  ✋ you: no — "keep the draft for now"`);
          return { confirmed: false, toolCall, reason: 'keep the draft for now' };
        }
        console.log(`  ✋ you: yes, and always allow ${toolCall.name}`);
        return { confirmed: true, toolCall, rules: toolCall.suggestedRules };
      }),
    });
  }
  return externalExecutionResultEvent({
    replyId,
    executionResults: calls.map((call) => {
      if (call.name === 'AskUser') {
        console.log('  ✋ you pick: Staging (Recommended)');
        return askUserResult(call, [
          { question: 'Where should I deploy?', selected: ['Staging (Recommended)'], other: null },
        ]);
      }
      console.log('  ✋ operator: deployed, https://staging.example.test');
      return {
        type: 'tool_result',
        id: call.id,
        name: call.name,
        output: 'Deployed to https://staging.example.test',
        state: 'success',
      };
    }),
  });
}

async function main(): Promise<void> {
  console.log('Parley seed flow (scripted model, scripted answers — no network)');
  let state: AgentState | undefined;
  let input: ReplyInput | undefined =
    'Write the plan and todo notes, delete the draft, then deploy.';
  while (input !== undefined) {
    const agent: Agent = new Agent({
      name: 'assistant',
      model,
      toolkit,
      ...(state ? { state } : {}),
    });
    let next: InputEvent | undefined;
    for await (const event of agent.replyStream(input)) {
      const { inline, line } = describeEvent(event);
      if (inline !== undefined) process.stdout.write(inline);
      if (line !== undefined) console.log(line);
      if (event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') {
        next = answer(
          event.type === 'REQUIRE_USER_CONFIRM' ? 'confirm' : 'external',
          event.replyId,
          event.toolCalls,
        );
      }
    }
    state = JSON.parse(JSON.stringify(agent.state)) as AgentState; // survives any process
    input = next;
  }
  console.log(`\nNotes now: ${[...notes.keys()].join(', ')}`);
  console.log(
    `Rules accepted: ${state?.permission.allowRules.map((rule) => rule.toolName).join(', ')}`,
  );
}

await main();
