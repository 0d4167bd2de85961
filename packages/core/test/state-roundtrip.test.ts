import { describe, expect, it } from 'vitest';
import {
  Agent,
  AskUser,
  Toolkit,
  askUserResult,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../src/index.js';
import type { AgentEvent, AgentState, ReplyInput, ToolCallBlock } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import type { ScriptedStep } from '../src/testing/index.js';
import {
  confirm,
  deploy,
  external,
  makeFetch,
  makeLookup,
  makeWriteNote,
  normalize,
  resultFor,
  roundTrip,
  types,
} from './support.js';

const question = {
  questions: [
    {
      question: 'Which region?',
      header: 'Region',
      options: [
        { label: 'EU (Recommended)', description: 'close to users' },
        { label: 'US', description: 'cheaper' },
      ],
    },
  ],
};

/** One long conversation touching every kind of park and resume. */
const script: ScriptedStep[] = [
  // reply 1, turn 1: a concurrent batch with two prompts, a de-duplicated call, a read-only call and AskUser
  {
    thinking: 'Fetch, look up and ask.',
    toolCalls: [
      { id: 'f1', name: 'fetch', input: { url: 'https://a.example/1' } },
      { id: 'f2', name: 'fetch', input: { url: 'https://a.example/2' } },
      { id: 'f3', name: 'fetch', input: { url: 'https://b.example/1' } },
      { id: 'k1', name: 'lookup', input: { key: 'k' } },
      { id: 'q1', name: 'AskUser', input: question },
    ],
  },
  // turn 2: a sequential batch of two writes
  {
    text: 'Writing two notes.',
    toolCalls: [
      { id: 'w1', name: 'write_note', input: { path: 'one', content: '1' } },
      { id: 'w2', name: 'write_note', input: { path: 'two', content: '2' } },
    ],
  },
  // turn 3: an external tool that asks first
  { toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'eu' } }] },
  { text: 'Deployed to the EU.' },
  // reply 2: a write allowed by the accepted rule, then a deploy that is interrupted
  {
    toolCalls: [
      { id: 'w3', name: 'write_note', input: { path: 'three', content: '3' } },
      { id: 'd2', name: 'deploy', input: { env: 'us' } },
    ],
  },
  // reply 3: the model sees everything, including the interrupted deploy
  { thinking: 'The user stopped me.', text: 'What should I do instead?' },
];

const inputs: ReplyInput[] = ['Set up the site.', 'Also the US.', 'Why did you stop?'];

type Ctx = { replyId: string; calls: Map<string, ToolCallBlock> };
const call = (ctx: Ctx, id: string): ToolCallBlock => {
  const found = ctx.calls.get(id);
  if (found === undefined) throw new Error(`no call ${id} was surfaced`);
  return found;
};

/** The answers given at each park, in order. */
const answers: ((ctx: Ctx) => ReplyInput)[] = [
  // f1 confirmed with its rule (covers f2), f3 and q1 left open: re-parks silently
  (ctx) => confirm(ctx.replyId, [call(ctx, 'f1')], { withRules: true }),
  // the AskUser answer: still parked on f3
  (ctx) =>
    external(ctx.replyId, [
      askUserResult(call(ctx, 'q1'), [
        { question: 'Which region?', selected: ['EU (Recommended)'], other: null },
      ]),
    ]),
  // f3 denied with a reason: f2 then runs by the rule, and the model goes on
  (ctx) => confirm(ctx.replyId, [call(ctx, 'f3')], { confirmed: false, reason: 'not that host' }),
  // w1 confirmed with an edited input; w2 is asked next
  (ctx) =>
    userConfirmResultEvent({
      replyId: ctx.replyId,
      confirmResults: [
        {
          confirmed: true,
          toolCall: { ...call(ctx, 'w1'), input: '{"path":"one-edited","content":"1"}' },
        },
      ],
    }),
  // an empty answer: re-parks
  (ctx) => confirm(ctx.replyId, []),
  // w2 confirmed with its rule (allows every later write)
  (ctx) => confirm(ctx.replyId, [call(ctx, 'w2')], { withRules: true }),
  // d1 confirmed: it goes to external execution
  (ctx) => confirm(ctx.replyId, [call(ctx, 'd1')]),
  // d1's result
  (ctx) => external(ctx.replyId, [resultFor(call(ctx, 'd1'), 'live', { url: 'https://eu' })]),
  // reply 2: d2 asks; the user interrupts
  (ctx) => userInterruptEvent({ replyId: ctx.replyId }),
];

type Played = {
  model: ScriptedModel;
  streams: AgentEvent[][];
  log: string[];
  finalState: AgentState;
  parks: number;
};

/** Plays the conversation, continuing the same agent or reviving it from JSON at every park. */
async function play(reviveAtEveryPark: boolean): Promise<Played> {
  const model = new ScriptedModel(script);
  const log: string[] = [];
  const toolkit = new Toolkit([
    makeFetch(log),
    makeLookup(log),
    makeWriteNote(log),
    deploy,
    AskUser,
  ]);
  const make = (state?: AgentState): Agent =>
    new Agent({
      name: 'assistant',
      systemPrompt: 'You set up sites.',
      model,
      toolkit,
      ...(state === undefined ? {} : { state }),
    });
  let agent = make();
  const streams: AgentEvent[][] = [];
  const ctx: Ctx = { replyId: '', calls: new Map() };
  const record = (events: AgentEvent[]): void => {
    streams.push(events);
    for (const event of events) {
      if (event.type === 'REPLY_START') ctx.replyId = event.replyId;
      if (event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') {
        for (const toolCall of event.toolCalls) ctx.calls.set(toolCall.id, toolCall);
      }
    }
  };
  let parks = 0;
  for (const input of inputs) {
    record(await collect(agent.replyStream(input)));
    while (agent.state.reply?.status === 'parked') {
      // A parked state is plain JSON: nothing is lost or changed by a round trip.
      expect(roundTrip(agent.state)).toStrictEqual(agent.state);
      if (reviveAtEveryPark) agent = make(roundTrip(agent.state));
      const answer = answers[parks];
      if (answer === undefined) throw new Error(`no answer for park ${parks}`);
      parks += 1;
      record(await collect(agent.replyStream(answer(ctx))));
    }
  }
  return { model, streams, log, finalState: agent.state, parks };
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('AgentState: a parked agent revived from JSON goes on exactly where it stopped', () => {
  it('the model sees the same requests and the caller the same events either way', async () => {
    const same = await play(false);
    const revived = await play(true);

    // The scenario really went through every park it was written for.
    expect(same.parks).toBe(answers.length);
    expect(same.model.remaining).toBe(0);
    expect(same.streams.map((events) => types(events).filter((t) => t.startsWith('RE')))).toEqual([
      ['REPLY_START', 'REQUIRE_USER_CONFIRM', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION'],
      [],
      [],
      ['REQUIRE_USER_CONFIRM'],
      ['REQUIRE_USER_CONFIRM'],
      [],
      ['REQUIRE_USER_CONFIRM'],
      ['REQUIRE_EXTERNAL_EXECUTION'],
      ['REPLY_END'],
      ['REPLY_START', 'REQUIRE_USER_CONFIRM'],
      ['REPLY_END'],
      ['REPLY_START', 'REPLY_END'],
    ]);
    expect(same.log).toEqual([
      'k',
      'https://a.example/1',
      'https://a.example/2',
      'one-edited=1',
      'two=2',
      'three=3',
    ]);

    expect(revived.parks).toBe(same.parks);
    expect(revived.log).toEqual(same.log);
    expect(revived.model.requests).toHaveLength(same.model.requests.length);
    expect(normalize(revived.model.requests)).toEqual(normalize(same.model.requests));
    expect(revived.streams.map(types)).toEqual(same.streams.map(types));
    expect(normalize(revived.streams)).toEqual(normalize(same.streams));
    expect(normalize(revived.finalState)).toEqual(normalize(same.finalState));
  });

  it('a new Agent copies the state it is given; later edits of that object do not reach it', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
    ]);
    const toolkit = new Toolkit([makeWriteNote()]);
    const first = new Agent({ model, toolkit });
    await first.reply('write');
    const stored = roundTrip(first.state);
    const second = new Agent({ model, toolkit, state: stored });
    expect(second.state).toEqual(first.state);
    stored.context.length = 0;
    stored.reply = null;
    expect(second.state).toEqual(first.state);
  });
});
