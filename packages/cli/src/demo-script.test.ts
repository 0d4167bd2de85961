import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Agent,
  Toolkit,
  askUserResult,
  externalExecutionResultEvent,
  parseAgentState,
  textOf,
  userConfirmResultEvent,
} from '@parley/core';
import type { AgentEvent, AgentState, InputEvent } from '@parley/core';
import { confirmResult } from './confirm-prompt.js';
import { demoModel } from './demo-script.js';
import { demoTools } from './demo-tools.js';
import { externalResult } from './external-prompt.js';
import { waitingCalls } from './waiting-calls.js';
import type { WaitingCall } from './waiting-calls.js';

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function setup(): Promise<{ directory: string; make: (state?: AgentState) => Agent }> {
  const directory = await mkdtemp(join(tmpdir(), 'parley-demo-test-'));
  const tools = demoTools(directory);
  const make = (state?: AgentState): Agent =>
    new Agent({
      model: demoModel({ chunkMs: 0, firstChunkMs: 0 }),
      toolkit: new Toolkit(tools),
      ...(state === undefined ? {} : { state }),
    });
  return { directory, make };
}

const only = (agent: Agent): WaitingCall => {
  const waiting = waitingCalls(agent.state);
  expect(waiting).toHaveLength(1);
  return waiting[0]!;
};

const lastText = (agent: Agent): string => textOf(agent.state.context.at(-1)!);

describe('the scripted demo', () => {
  it('walks through confirmation, denial, a rule, an external tool and AskUser', async () => {
    const { directory, make } = await setup();
    let agent = make();
    await drain(agent.replyStream('hi'));
    let waiting = only(agent);
    expect(waiting).toMatchObject({ kind: 'confirm', toolCall: { name: 'write_note' } });

    const answer = async (event: InputEvent): Promise<void> => {
      await drain(agent.replyStream(event));
    };
    const confirm = (choice: 'yes' | 'always' | 'no', reason?: string): InputEvent =>
      userConfirmResultEvent({
        replyId: waiting.replyId,
        confirmResults: [
          confirmResult(choice, waiting.toolCall, reason === undefined ? {} : { reason }),
        ],
      });

    await answer(confirm('yes'));
    expect(await readdir(directory)).toEqual(['welcome.md']);
    waiting = only(agent);
    expect(waiting.toolCall.name).toBe('delete_notes');

    await answer(confirm('no', 'keep them'));
    expect(lastText(agent)).toContain('Your reason reached me: "keep them"');
    waiting = only(agent);
    expect(waiting.toolCall.input).toContain('todo.md');

    // A JSON round trip mid-tour: a new process goes on exactly here.
    agent = make(parseAgentState(JSON.parse(JSON.stringify(agent.state))));
    waiting = only(agent);
    await answer(confirm('always'));
    expect((await readdir(directory)).sort()).toEqual(['ideas.md', 'todo.md', 'welcome.md']);
    expect(agent.state.permission.allowRules.map((rule) => rule.toolName)).toEqual(['write_note']);

    waiting = only(agent);
    expect(waiting).toMatchObject({ kind: 'external', toolCall: { name: 'deploy' } });
    await answer(
      externalExecutionResultEvent({
        replyId: waiting.replyId,
        executionResults: [externalResult(waiting.toolCall, 'success', 'live at staging')],
      }),
    );
    expect(lastText(agent)).toContain('you reported: "live at staging"');

    waiting = only(agent);
    expect(waiting.toolCall.name).toBe('AskUser');
    await answer(
      externalExecutionResultEvent({
        replyId: waiting.replyId,
        executionResults: [
          askUserResult(waiting.toolCall, [
            { question: 'What should the notebook get next?', selected: ['Tags'], other: null },
            {
              question: 'Which formats should an export support?',
              selected: ['HTML'],
              other: 'EPUB',
            },
          ]),
        ],
      }),
    );
    expect(agent.state.reply).toBeNull();
    expect(lastText(agent)).toContain('You chose: Tags; HTML + EPUB.');

    await drain(agent.replyStream('again?'));
    expect(lastText(agent)).toContain('The tour is over');
  });

  it('reacts to a confirmation that was refused', async () => {
    const { make } = await setup();
    const agent = make();
    await drain(agent.replyStream('hi'));
    const waiting = only(agent);
    await drain(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: waiting.replyId,
          confirmResults: [confirmResult('no', waiting.toolCall)],
        }),
      ),
    );
    expect(lastText(agent)).toContain('Fine, no note then.');
  });
});
