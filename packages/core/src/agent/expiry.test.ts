import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AskUser,
  ReplyExpiredError,
  textOf,
  Toolkit,
  tool,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../index.js';
import type { AgentEvent, AgentState, ToolResultBlock } from '../index.js';
import { ScriptedModel } from '../testing/index.js';
import { Agent } from './agent.js';
import { expiryTexts } from './expiry.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** A clock the test moves by hand. */
function manualClock(): { now: () => Date; advance: (ms: number) => void } {
  let at = T0;
  return { now: () => new Date(at), advance: (ms) => (at += ms) };
}

function setup(options: { onExpire?: 'deny' | 'interrupt'; parkTimeout?: number } = {}) {
  const clock = manualClock();
  const ran: string[] = [];
  const write = tool({
    name: 'write_file',
    description: 'Write a file.',
    input: z.object({ path: z.string() }),
    execute: ({ path }) => {
      ran.push(path);
      return 'written';
    },
  });
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'tc1', name: 'write_file', input: { path: 'a.txt' } }] },
    { text: 'Understood, I will not write it.' },
    { text: 'second reply' },
  ]);
  const make = (state?: AgentState): Agent =>
    new Agent({
      model,
      toolkit: new Toolkit([write, AskUser]),
      parkTimeout: options.parkTimeout ?? 60_000,
      clock: clock.now,
      ...(options.onExpire === undefined ? {} : { onExpire: options.onExpire }),
      ...(state === undefined ? {} : { state: JSON.parse(JSON.stringify(state)) }),
    });
  return { clock, ran, model, make };
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function results(agent: Agent, index = -1): ToolResultBlock[] {
  const message = agent.state.context.at(index);
  if (message === undefined || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('parkTimeout and onExpire', () => {
  it('stamps the deadline (clock + parkTimeout) into the parked state', async () => {
    const { make } = setup({ parkTimeout: 1_500 });
    const agent = make();
    await agent.reply('write a.txt');
    expect(agent.state.reply).toMatchObject({
      status: 'parked',
      deadline: '2030-01-01T00:00:01.500Z',
    });
  });

  it('has no deadline without parkTimeout', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'tc1', name: 'write_file', input: { path: 'a.txt' } }] },
    ]);
    const write = tool({
      name: 'write_file',
      description: 'Write a file.',
      input: z.object({ path: z.string() }),
      execute: () => 'written',
    });
    const agent = new Agent({ model, toolkit: new Toolkit([write]) });
    await agent.reply('write');
    expect(agent.state.reply?.status).toBe('parked');
    expect(agent.state.reply?.deadline).toBeUndefined();
  });

  it('accepts an answer before the deadline', async () => {
    const { make, clock, ran } = setup();
    const first = make();
    await first.reply('write a.txt');
    clock.advance(59_999);
    const agent = make(first.state);
    const call = first.state.context.at(-1);
    if (call === undefined || typeof call.content === 'string') throw new Error('no reply');
    const block = call.content.find((b) => b.type === 'tool_call');
    if (block?.type !== 'tool_call') throw new Error('no call');
    await agent.reply(
      userConfirmResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: block }],
      }),
    );
    expect(ran).toStrictEqual(['a.txt']);
  });

  it('deny: settles on the next touch, the model reads the expiry and goes on', async () => {
    const { make, clock, ran, model } = setup();
    const first = make();
    await first.reply('write a.txt');
    clock.advance(60_000);
    const agent = make(first.state);
    const events = await collect(agent.replyStream());
    expect(ran).toStrictEqual([]);
    expect(results(agent)).toStrictEqual([
      {
        type: 'tool_result',
        id: 'tc1',
        name: 'write_file',
        output: expiryTexts.denied('write_file'),
        state: 'denied',
        metadata: { expired: '2030-01-01T00:01:00.000Z' },
      },
    ]);
    expect(events.map((event) => event.type)).toContain('TOOL_RESULT_END');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
    expect(model.requests).toHaveLength(2);
    expect(agent.state.reply).toBeNull();
  });

  it('interrupt: ends the reply as USER_INTERRUPT would, without a model call', async () => {
    const { make, clock, model } = setup({ onExpire: 'interrupt' });
    const first = make();
    await first.reply('write a.txt');
    clock.advance(60_001);
    const agent = make(first.state);
    const answer = await agent.reply();
    expect(answer.finishedReason).toBe('interrupted');
    expect(results(agent).map((result) => [result.state, result.output])).toStrictEqual([
      ['interrupted', expiryTexts.interrupted],
    ]);
    expect(model.requests).toHaveLength(1);
  });

  it('refuses a late answer with ReplyExpiredError, after settling the reply', async () => {
    const { make, clock, ran } = setup();
    const first = make();
    await first.reply('write a.txt');
    const replyId = first.state.reply?.replyId ?? '';
    const message = first.state.context.at(-1);
    if (message === undefined || typeof message.content === 'string') throw new Error('no reply');
    const call = message.content.find((block) => block.type === 'tool_call');
    if (call?.type !== 'tool_call') throw new Error('no call');
    clock.advance(120_000);
    const agent = make(first.state);
    const late = userConfirmResultEvent({
      replyId,
      confirmResults: [{ confirmed: true, toolCall: call }],
    });
    const error = await agent.reply(late).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplyExpiredError);
    expect(error).toMatchObject({
      code: 'reply_expired',
      replyId,
      deadline: '2030-01-01T00:01:00.000Z',
    });
    expect(ran).toStrictEqual([]);
    expect(results(agent)[0]?.state).toBe('denied');
    expect(agent.state.reply).toBeNull();
  });

  it('closes an expired reply when new input arrives, and runs the new reply', async () => {
    const { make, clock } = setup({ onExpire: 'deny' });
    const first = make();
    await first.reply('write a.txt');
    clock.advance(60_000);
    const model = new ScriptedModel([{ text: 'fresh answer' }]);
    const agent = new Agent({
      model,
      state: JSON.parse(JSON.stringify(first.state)),
      parkTimeout: 60_000,
      clock: clock.now,
    });
    const answer = await agent.reply('something else');
    expect(textOf(answer)).toBe('fresh answer');
    const closed = agent.state.context.at(-3);
    expect(closed?.finishedReason).toBe('interrupted');
    expect(results(agent, -3).map((result) => result.output)).toStrictEqual([
      expiryTexts.denied('write_file'),
    ]);
  });

  it('lets USER_INTERRUPT end an expired reply as usual', async () => {
    const { make, clock } = setup();
    const first = make();
    await first.reply('write a.txt');
    clock.advance(60_000);
    const agent = make(first.state);
    const replyId = first.state.reply?.replyId ?? '';
    const answer = await agent.reply(userInterruptEvent({ replyId }));
    expect(answer.finishedReason).toBe('interrupted');
  });

  it('closes a submitted external call as interrupted, its outcome unknown', async () => {
    const clock = manualClock();
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            id: 'ask1',
            name: 'AskUser',
            input: {
              questions: [
                {
                  question: 'Which?',
                  header: 'Pick',
                  options: [
                    { label: 'A', description: 'a' },
                    { label: 'B', description: 'b' },
                  ],
                },
              ],
            },
          },
        ],
      },
      { text: 'No answer, moving on.' },
    ]);
    const options = { model, toolkit: new Toolkit([AskUser]), parkTimeout: 10, clock: clock.now };
    const first = new Agent(options);
    await first.reply('ask me');
    expect(first.state.reply?.status).toBe('parked');
    clock.advance(10);
    const agent = new Agent({ ...options, state: JSON.parse(JSON.stringify(first.state)) });
    await agent.reply();
    expect(results(agent).map((result) => [result.state, result.output])).toStrictEqual([
      ['interrupted', expiryTexts.external('AskUser')],
    ]);
  });

  it('refuses a parkTimeout that is no duration', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, parkTimeout: -1 })).toThrow(RangeError);
    expect(() => new Agent({ model, parkTimeout: Number.NaN })).toThrow(RangeError);
  });
});
