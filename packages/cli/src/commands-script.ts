import { z } from 'zod';
import { tool } from '@parley/core';
import type { AnyTool, ChatModel, ChatRequest, Msg, ToolResultBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import type { ScriptedToolCall, ScriptedTurn } from '@parley/core/testing';
import { resultText } from './format.js';
import { demoTools } from './demo-tools.js';

/**
 * The scripted commands model (`--model scripted:commands`): no model is
 * called; the last user message is a command, so a client (a test, a
 * front-end being built) can make the agent do exactly what it wants to
 * see. Each command makes one model turn; once the calls it made have
 * results, the next turn reports them and the reply ends.
 *
 * - `note PATH`: `write_note` (asks before it runs)
 * - `delete`: `delete_notes` (asks)
 * - `publish A B ...`: one `publish` call per name, in one turn (they ask, side by side)
 * - `deploy`: the external `deploy` tool (the person runs it)
 * - `ask`: `AskUser` with two questions
 * - `use TOOL {json}`: a call of any tool the request offers (a client's tool), with that input
 * - anything else: the text is said back
 */
export const commandsSystemPrompt = 'You follow the commands of the user, one turn each.';

const askInput = {
  questions: [
    {
      header: 'Color',
      question: 'Which color should the notebook use?',
      options: [
        { label: 'Blue', description: 'calm' },
        { label: 'Green', description: 'fresh' },
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
};

/** The tool calls a command asks for, or undefined when it is not one. */
function callsOf(command: string): ScriptedToolCall[] | undefined {
  const [verb = '', ...rest] = command.trim().split(/\s+/);
  switch (verb) {
    case 'note':
      return [
        {
          name: 'write_note',
          input: { path: rest[0] ?? 'note.md', content: rest.slice(1).join(' ') || 'hello' },
        },
      ];
    case 'delete':
      return [{ name: 'delete_notes', input: { suffix: rest[0] ?? '.md' } }];
    case 'publish':
      return (rest.length > 0 ? rest : ['a.md', 'b.md']).map((path) => ({
        name: 'publish',
        input: { path },
      }));
    case 'deploy':
      return [{ name: 'deploy', input: { environment: rest[0] ?? 'staging' } }];
    case 'ask':
      return [{ name: 'AskUser', input: askInput }];
    case 'use': {
      const match = /^\s*use\s+(\S+)\s*([\s\S]*)$/.exec(command);
      const raw = match?.[2]?.trim() ?? '';
      return [{ name: match?.[1] ?? '', input: raw === '' ? {} : raw }];
    }
    default:
      return undefined;
  }
}

function textOfMessage(message: Msg): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** The next turn: the command of the last user message, or a report of the results so far. */
export function commandsTurn(request: ChatRequest): ScriptedTurn {
  const reply = request.messages.at(-1);
  const blocks = reply?.role === 'assistant' && Array.isArray(reply.content) ? reply.content : [];
  const results = blocks.filter((block): block is ToolResultBlock => block.type === 'tool_result');
  if (results.length > 0) {
    const lines = results.map(
      (result) => `${result.name} ${result.state}: ${resultText(result.output)}`,
    );
    return { text: `Results:\n${lines.join('\n')}` };
  }
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  const command = user === undefined ? '' : textOfMessage(user);
  const calls = callsOf(command);
  if (calls === undefined) return { text: `You said: ${command}` };
  return { text: `Running: ${command.trim()}`, toolCalls: calls };
}

/** The model of `scripted:commands`. */
export function commandsModel(): ChatModel {
  return new ScriptedModel([commandsTurn], {
    name: 'scripted-commands',
    repeatLast: true,
    chunkSize: 16,
    record: false,
  });
}

/** The tools of `scripted:commands`: the demo's notebook tools and `publish`, writing in `directory`. */
export function commandsTools(directory: string): AnyTool[] {
  const publish = tool({
    name: 'publish',
    description: 'Publish a note. Asks first; several can be published side by side.',
    input: z.object({ path: z.string().min(1) }),
    concurrencySafe: true,
    // A rule per path, so one call's suggestion does not cover its sibling's.
    suggestRules: ({ path }) => [
      { toolName: 'publish', ruleContent: path, behavior: 'allow', source: 'suggested' },
    ],
    matchRule: (ruleContent, { path }) => ruleContent === path,
    execute: ({ path }) => `Published ${path}`,
  });
  return [...demoTools(directory), publish];
}
