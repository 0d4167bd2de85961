import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { userConfirmResultEvent } from '../event/index.js';
import type { UserConfirmResultEvent } from '../event/index.js';
import { parseAgentState } from '../state/index.js';
import { ScriptedModel } from '../testing/index.js';
import { Toolkit, tool } from '../tool/index.js';
import { Agent } from './agent.js';
import { adoptInput, adoptState, takeAdopted, takeAdoptedInput } from './adopt.js';
import type { Middleware } from './middleware.js';
import { readsOnly } from './middleware.js';

const note = tool({
  name: 'write_note',
  description: 'Write a note.',
  input: z.object({ path: z.string() }),
  execute: () => 'ok',
});

function parkedAgent(): Promise<{ agent: Agent; answer: UserConfirmResultEvent }> {
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'c1', name: 'write_note', input: { path: 'a' } }] },
    { text: 'done' },
  ]);
  const agent = new Agent({ model, toolkit: new Toolkit([note]) });
  return (async () => {
    let answer: UserConfirmResultEvent | undefined;
    for await (const event of agent.replyStream('go')) {
      if (event.type === 'REQUIRE_USER_CONFIRM') {
        answer = userConfirmResultEvent({
          replyId: event.replyId,
          confirmResults: event.toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
        });
      }
    }
    if (answer === undefined) throw new Error('did not park');
    return { agent, answer };
  })();
}

describe('adoptState', () => {
  it('hands the object itself to the next agent, once; a state a user passes is copied', async () => {
    const { agent } = await parkedAgent();
    const state = parseAgentState(JSON.parse(JSON.stringify(agent.state)));
    const model = new ScriptedModel([]);
    const adopted = new Agent({ model, state: adoptState(state) });
    expect(adopted.state).toBe(state);
    expect(takeAdopted(state)).toBe(false);
    const copied = new Agent({ model, state });
    expect(copied.state).not.toBe(state);
    expect(copied.state).toEqual(state);
  });
});

describe('adoptInput', () => {
  it('works once: the agent takes the event as given, and a second look finds it not adopted', () => {
    const event = userConfirmResultEvent({ replyId: 'r', confirmResults: [] });
    expect(takeAdoptedInput(adoptInput(event))).toBe(true);
    expect(takeAdoptedInput(event)).toBe(false);
    expect(takeAdoptedInput('text')).toBe(false);
    expect(takeAdoptedInput(null)).toBe(false);
  });

  it('an adopted answer resumes the parked reply like a parsed one', async () => {
    const { agent, answer } = await parkedAgent();
    const final = await agent.reply(adoptInput(answer));
    expect(final.finishedReason).toBe('completed');
  });
});

describe('readsOnly middlewares', () => {
  it('get the stored call itself, while a user middleware beside them gets a copy', async () => {
    let agent: Agent | undefined;
    const storedCall = (): unknown => {
      const content = agent?.state.context.at(-1)?.content;
      return Array.isArray(content)
        ? content.find((block) => block.type === 'tool_call')
        : undefined;
    };
    const sameAsStored: { own: boolean[]; user: boolean[] } = { own: [], user: [] };
    const own = readsOnly({
      onCheckPermission: async (context, next) => {
        sameAsStored.own.push(context.toolCall === storedCall());
        return next(context);
      },
    });
    const user: Middleware = {
      onCheckPermission: async (context, next) => {
        sameAsStored.user.push(context.toolCall === storedCall());
        return next(context);
      },
    };
    for (const middlewares of [[own], [own, user]]) {
      agent = new Agent({
        model: new ScriptedModel([
          { toolCalls: [{ id: 'c1', name: 'write_note', input: { path: 'a' } }] },
        ]),
        toolkit: new Toolkit([note]),
        middlewares,
      });
      await agent.reply('go');
    }
    expect(sameAsStored).toEqual({ own: [true, false], user: [false] });
  });
});
