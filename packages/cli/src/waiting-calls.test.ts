import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type { AgentEvent, Tool } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { confirmResult } from './confirm-prompt.js';
import { waitingCalls } from './waiting-calls.js';

const log: string[] = [];
const safeTool = (name: string) =>
  tool({
    name,
    description: name,
    input: z.object({ value: z.string() }),
    concurrencySafe: true,
    execute: async ({ value }) => {
      log.push(`${name}:${value}`);
      return 'ok';
    },
  });

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('waitingCalls', () => {
  it('lists parallel asks in the model’s order; answering one at a time runs each at once', async () => {
    const agent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { id: 'a', name: 'first', input: { value: '1' } },
            { id: 'b', name: 'second', input: { value: '2' } },
          ],
        },
        { text: 'both done' },
      ]),
      toolkit: new Toolkit([safeTool('first'), safeTool('second')]),
    });
    const events = await drain(agent.replyStream('go'));
    expect(events.filter((event) => event.type === 'REQUIRE_USER_CONFIRM')).toHaveLength(2);
    const [one, two] = waitingCalls(agent.state);
    expect([one?.toolCall.id, two?.toolCall.id]).toEqual(['a', 'b']);

    await drain(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: one!.replyId,
          confirmResults: [confirmResult('yes', one!.toolCall)],
        }),
      ),
    );
    expect(log).toEqual(['first:1']);
    expect(waitingCalls(agent.state).map((waiting) => waiting.toolCall.id)).toEqual(['b']);

    await drain(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: two!.replyId,
          confirmResults: [confirmResult('yes', two!.toolCall)],
        }),
      ),
    );
    expect(log).toEqual(['first:1', 'second:2']);
    expect(waitingCalls(agent.state)).toEqual([]);
    expect(agent.state.reply).toBeNull();
  });

  it('carries why a confirmation asks, as the agent kept it', async () => {
    const reader: Tool<{ path: string }> = {
      ...tool({
        name: 'read_file',
        description: 'Reads a file.',
        input: z.object({ path: z.string() }),
        readOnly: true,
        execute: async () => 'contents',
      }),
      checkReads: () => ({
        behavior: 'ask',
        message: 'Permission required for read_file',
        decisionReason: 'outside the working directories: ~/notes/a.md',
      }),
    };
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ id: 'r', name: 'read_file', input: { path: '~/notes/a.md' } }] },
      ]),
      toolkit: new Toolkit([reader]),
    });
    await drain(agent.replyStream('go'));
    expect(waitingCalls(agent.state)[0]?.ask).toEqual({
      message: 'Permission required for read_file',
      decisionReason: 'outside the working directories: ~/notes/a.md',
    });
  });

  it('is empty when nothing is parked', () => {
    const agent = new Agent({ model: new ScriptedModel([]) });
    expect(waitingCalls(agent.state)).toEqual([]);
  });
});
