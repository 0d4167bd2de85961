import { askUserMetadataSchema } from '@parley/core';
import type { ChatModel, ChatRequest, Msg, ToolResultBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import type { ScriptedTurn } from '@parley/core/testing';
import { resultText, stripReminder } from './format.js';
import type { Pace } from './paced-model.js';
import { PacedModel } from './paced-model.js';

/**
 * The scripted demo: an offline walkthrough that needs no model. Each turn
 * is computed from the conversation the agent sends (never from a counter),
 * so a session saved mid-tour and reopened later goes on where it was.
 * Tool calls carry ids `demo-<stage>…`; the next stage follows the highest
 * one in the conversation.
 */

/** The label shown wherever the demo runs. */
export const demoLabel = 'scripted demo — no model is called';

/** What the demo tells the model it is (the scripted model ignores it; the session keeps it). */
export const demoSystemPrompt =
  'You are the Parley demo assistant. You keep a small notebook of Markdown notes.';

const lastStage = 5;

function blocks(messages: readonly Msg[]): Exclude<Msg['content'], string> {
  return messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content,
  );
}

function stageOf(id: string): number | undefined {
  const match = /^demo-(\d+)/.exec(id);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function resultOf(messages: readonly Msg[], id: string): ToolResultBlock | undefined {
  return blocks(messages).find(
    (block): block is ToolResultBlock => block.type === 'tool_result' && block.id === id,
  );
}

/** The reason a person gave with a denial, if any. */
export function denialReason(result: ToolResultBlock): string | undefined {
  const match = /Reason: ([\s\S]*)$/.exec(stripReminder(resultText(result.output)));
  return match?.[1]?.trim() || undefined;
}

function outcome(result: ToolResultBlock | undefined, done: string, refused: string): string {
  if (result === undefined) return '';
  switch (result.state) {
    case 'success':
      return done;
    case 'denied':
      return refused;
    default:
      return `That did not work (${result.state}): ${stripReminder(resultText(result.output))}`;
  }
}

function stage1(): ScriptedTurn {
  return {
    text:
      `(${demoLabel}: I follow a script that reacts to your answers.)\n` +
      'First, a note. Tools with side effects ask you before they run: choose "Yes".',
    toolCalls: [
      {
        id: 'demo-1',
        name: 'write_note',
        input: { path: 'welcome.md', content: 'Hello from the Parley demo.' },
      },
    ],
  };
}

function stage2(messages: readonly Msg[]): ScriptedTurn {
  const before = outcome(
    resultOf(messages, 'demo-1'),
    'The note is written.',
    'Fine, no note then.',
  );
  return {
    text: `${before}\nNext I will try something you should refuse: deleting every note. Choose "No" and tell me why.`,
    toolCalls: [{ id: 'demo-2', name: 'delete_notes', input: { suffix: '.md' } }],
  };
}

function stage3(messages: readonly Msg[]): ScriptedTurn {
  const result = resultOf(messages, 'demo-2');
  const reason = result === undefined ? undefined : denialReason(result);
  const refused =
    reason === undefined
      ? 'Understood, nothing deleted.'
      : `Understood, nothing deleted. Your reason reached me: "${reason}".`;
  const before = outcome(result, 'Deleted (they were only demo notes).', refused);
  return {
    text:
      `${before}\nNow two notes in a row. On the first prompt choose "Yes, and always allow": ` +
      'the second one then runs without asking.',
    toolCalls: [
      {
        id: 'demo-3a',
        name: 'write_note',
        input: { path: 'todo.md', content: '- deploy to staging' },
      },
      {
        id: 'demo-3b',
        name: 'write_note',
        input: { path: 'ideas.md', content: '- search\n- tags' },
      },
    ],
  };
}

function stage4(messages: readonly Msg[]): ScriptedTurn {
  const written = ['demo-3a', 'demo-3b'].filter(
    (id) => resultOf(messages, id)?.state === 'success',
  ).length;
  const before =
    written === 2
      ? 'Both notes are in; the rule let the second one through.'
      : `${written} of the 2 notes written.`;
  return {
    text: `${before}\nDeploying is not something I do myself: "deploy" is an external tool. You run it (just pretend), then tell me how it went.`,
    toolCalls: [{ id: 'demo-4', name: 'deploy', input: { environment: 'staging' } }],
  };
}

function stage5(messages: readonly Msg[]): ScriptedTurn {
  const result = resultOf(messages, 'demo-4');
  const said = result === undefined ? '' : stripReminder(resultText(result.output));
  const before =
    result?.state === 'success'
      ? `Deployed; you reported: "${said}".`
      : `The deploy did not go through: "${said}". Noted.`;
  return {
    text: `${before}\nLast, a decision only you can make.`,
    toolCalls: [
      {
        id: 'demo-5',
        name: 'AskUser',
        input: {
          questions: [
            {
              header: 'Next step',
              question: 'What should the notebook get next?',
              context: 'The notebook has welcome.md, todo.md and ideas.md (if you allowed them).',
              options: [
                {
                  label: 'Search (Recommended)',
                  description: 'Find notes by a word',
                  preview: '> search deploy\ntodo.md:1  - deploy to staging',
                },
                {
                  label: 'Tags',
                  description: 'Group notes by #tag',
                  preview: '# todo.md\ntags: #work #soon\n\n- deploy to staging',
                },
                {
                  label: 'Export',
                  description: 'Everything in one file',
                  preview: 'notebook.md\n├─ welcome\n├─ todo\n└─ ideas',
                },
              ],
            },
            {
              header: 'Formats',
              question: 'Which formats should an export support?',
              multiSelect: true,
              options: [
                { label: 'Markdown', description: 'plain .md' },
                { label: 'HTML', description: 'a static page' },
                { label: 'PDF', description: 'for printing' },
              ],
            },
          ],
        },
      },
    ],
  };
}

function finale(messages: readonly Msg[]): ScriptedTurn {
  const result = resultOf(messages, 'demo-5');
  const parsed = askUserMetadataSchema.safeParse(result?.metadata);
  const answers = parsed.success
    ? parsed.data.answers.map((answer) =>
        [...answer.selected, ...(answer.other === null ? [] : [answer.other])].join(' + '),
      )
    : [];
  const chose = answers.length > 0 ? `You chose: ${answers.join('; ')}.` : 'No answer came back.';
  return {
    text:
      `${chose}\nThat was the tour: a confirmation, a denial with a reason, an "always allow" rule, ` +
      'an external tool and a question. The session was saved after every step: Ctrl-C at a prompt ' +
      'leaves the reply parked, and "parley chat --session FILE" picks it up again.',
  };
}

function afterTour(): ScriptedTurn {
  return {
    text:
      `(${demoLabel}) The tour is over, and this script is all I know. ` +
      'Run "parley chat --model openai:gpt-4.1-mini" (or another model) to talk to a real one.',
  };
}

/** The demo's next turn for a request. */
export function demoTurn(request: ChatRequest): ScriptedTurn {
  const messages = request.messages;
  const stages = blocks(messages).flatMap((block) =>
    block.type === 'tool_call' ? [stageOf(block.id) ?? 0] : [],
  );
  const highest = Math.max(0, ...stages);
  if (highest >= lastStage) {
    // The reply in progress comes last; the finale answers the AskUser result in it.
    const current = messages.at(-1);
    const answered =
      current !== undefined && resultOf([current], `demo-${lastStage}`) !== undefined;
    return answered ? finale(messages) : afterTour();
  }
  switch (highest) {
    case 0:
      return stage1();
    case 1:
      return stage2(messages);
    case 2:
      return stage3(messages);
    case 3:
      return stage4(messages);
    default:
      return stage5(messages);
  }
}

/** The demo model: the script, streamed a few characters at a time at `pace`. */
export function demoModel(pace: Pace): ChatModel {
  const scripted = new ScriptedModel([demoTurn], {
    name: 'scripted:demo',
    chunkSize: 3,
    repeatLast: true,
  });
  return new PacedModel(scripted, pace);
}
