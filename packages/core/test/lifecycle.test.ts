import { describe, expect, it } from 'vitest';
import { textOf, userInterruptEvent } from '../src/index.js';
import type { Msg, ToolCallBlock } from '../src/index.js';
import {
  allowDeploy,
  asked,
  collect,
  confirm,
  deploy,
  external,
  makeLookup,
  makeWriteNote,
  modes,
  ofType,
  replyIdOf,
  resultFor,
  roundTrip,
  setup,
  submitted,
  types,
} from './support.js';

const waiting = "I'm waiting for your permission or the external execution to finish.";
const writeCall = { id: 'w1', name: 'write_note', input: { path: 'a.txt', content: 'hi' } };

describe('the reply lifecycle (SPEC 1)', () => {
  it('a text answer: REPLY_START first, REPLY_END(completed) last, one model call', async () => {
    const { agent, model } = setup([{ text: 'Hello!' }], []);
    const events = await collect(agent.replyStream('Hi'));
    expect(types(events)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    const start = ofType(events, 'REPLY_START')[0]!;
    expect(start).toMatchObject({
      sessionId: agent.state.sessionId,
      name: 'assistant',
      role: 'assistant',
    });
    const end = ofType(events, 'REPLY_END')[0]!;
    expect(end).toMatchObject({ sessionId: agent.state.sessionId, finishedReason: 'completed' });
    expect(end.error).toBeUndefined();
    expect(events.every((event) => event.replyId === start.replyId)).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(agent.state.reply).toBeNull();
  });

  it('every reply gets a fresh replyId', async () => {
    const { agent } = setup([{ text: 'one' }, { text: 'two' }], []);
    const first = replyIdOf(await collect(agent.replyStream('a')));
    const second = replyIdOf(await collect(agent.replyStream('b')));
    expect(first).not.toBe(second);
  });

  it('reply() resolves to the reply message, stored in the context under the replyId', async () => {
    const { agent } = setup([{ text: 'Hello!' }], []);
    const message = await agent.reply('Hi');
    expect(textOf(message)).toBe('Hello!');
    expect(message.finishedReason).toBe('completed');
    expect(message.role).toBe('assistant');
    const stored = agent.state.context.at(-1)!;
    expect(stored.id).toBe(message.id);
    expect(stored.finishedReason).toBe('completed');
  });

  it('takes a string, a Msg or a Msg[] of user and assistant messages, copied into the context', async () => {
    const { agent, model } = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }], []);
    await agent.reply('as a string');
    const single: Msg = { id: 'm1', name: 'ann', role: 'user', content: 'as a Msg' };
    await agent.reply(single);
    const many: Msg[] = [
      { id: 'm2', name: 'ann', role: 'user', content: [{ type: 'text', text: 'first' }] },
      { id: 'm3', name: 'bot', role: 'assistant', content: 'earlier answer' },
      { id: 'm4', name: 'ann', role: 'user', content: 'second' },
    ];
    await agent.reply(many);
    single.content = 'changed afterwards';
    const texts = agent.state.context.map((message) => [message.role, textOf(message)]);
    expect(texts).toEqual([
      ['user', 'as a string'],
      ['assistant', 'a'],
      ['user', 'as a Msg'],
      ['assistant', 'b'],
      ['user', 'first'],
      ['assistant', 'earlier answer'],
      ['user', 'second'],
      ['assistant', 'c'],
    ]);
    expect(agent.state.context.map((message) => message.id).slice(2, 3)).toEqual(['m1']);
    expect(model.requests[2]!.messages.map((message) => message.id).slice(-4, -1)).toEqual([
      'm2',
      'm3',
      'm4',
    ]);
  });

  it('runs the reasoning-acting loop until the model answers without a tool call', async () => {
    const log: string[] = [];
    const { agent, model } = setup(
      [
        { toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] },
        { text: 'Checking b too.', toolCalls: [{ id: 'k2', name: 'lookup', input: { key: 'b' } }] },
        { text: 'a and b found.' },
      ],
      [makeLookup(log)],
    );
    const events = await collect(agent.replyStream('look a and b up'));
    expect(log).toEqual(['a', 'b']);
    expect(model.requests).toHaveLength(3);
    expect(ofType(events, 'MODEL_CALL_START')).toHaveLength(3);
    expect(ofType(events, 'REPLY_START')).toHaveLength(1);
    expect(ofType(events, 'REPLY_END')).toHaveLength(1);
    expect(types(events).at(0)).toBe('REPLY_START');
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('keeps all output of one reply in ONE assistant message whose id is the replyId', async () => {
    const { agent } = setup(
      [
        {
          thinking: 'I should look it up.',
          text: 'Looking.',
          toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }],
        },
        { text: 'Found it.' },
      ],
      [makeLookup()],
    );
    const events = await collect(agent.replyStream('look a up'));
    expect(agent.state.context).toHaveLength(2);
    const reply = agent.state.context[1]!;
    expect(reply.id).toBe(replyIdOf(events));
    expect(reply.role).toBe('assistant');
    expect(reply.name).toBe('assistant');
    const blocks = reply.content as { type: string }[];
    expect(blocks.map((block) => block.type)).toEqual([
      'thinking',
      'text',
      'tool_call',
      'tool_result',
      'text',
    ]);
  });

  it('an empty Msg[] or no input starts a reply from the context as it stands', async () => {
    const { agent, model } = setup([{ text: 'a' }, { text: 'b' }], []);
    await agent.reply([]);
    await agent.reply();
    expect(model.requests).toHaveLength(2);
    expect(agent.state.context.map((message) => message.role)).toEqual(['assistant', 'assistant']);
  });
});

describe.each(modes)('parking and resuming (SPEC 1), %s', (mode) => {
  it('parks: the stream ends after REQUIRE_USER_CONFIRM with no REPLY_END', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'done' }], [makeWriteNote()]);
    const events = await collect(agent.replyStream('write'));
    expect(types(events).at(-1)).toBe('REQUIRE_USER_CONFIRM');
    expect(types(events)).not.toContain('REPLY_END');
    expect(agent.state.reply).toMatchObject({ replyId: replyIdOf(events), status: 'parked' });
  });

  it('parks: the stream ends after REQUIRE_EXTERNAL_EXECUTION with no REPLY_END', async () => {
    const { agent } = setup(
      [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }],
      [deploy],
      { permission: { rules: [allowDeploy] } },
    );
    const events = await collect(agent.replyStream('deploy'));
    expect(types(events).slice(-2)).toEqual(['TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION']);
    expect(types(events)).not.toContain('REPLY_END');
  });

  it('reply() resolves to the waiting notice, not stored in the context', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }], [makeWriteNote()]);
    const before = agent.state.context.length;
    const notice = await agent.reply('write');
    expect(notice).toMatchObject({ role: 'assistant', content: waiting, finishedReason: null });
    expect(notice.id).toBe(agent.state.reply!.replyId);
    expect(agent.state.context).toHaveLength(before + 2);
    expect(JSON.stringify(agent.state)).not.toContain(waiting);
  });

  it('a resume has no second REPLY_START, keeps the replyId and ends with one REPLY_END', async () => {
    const { agent, resume } = setup(
      [{ toolCalls: [writeCall] }, { text: 'done' }],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('write'));
    const replyId = replyIdOf(first);
    const next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyId, asked(first))));
    expect(types(second)).not.toContain('REPLY_START');
    expect(second.every((event) => event.replyId === replyId)).toBe(true);
    expect(types(second).at(-1)).toBe('REPLY_END');
    expect(ofType([...first, ...second], 'REPLY_END')).toHaveLength(1);
    expect(ofType([...first, ...second], 'REPLY_START')).toHaveLength(1);
    expect(next.state.context.at(-1)!.id).toBe(replyId);
    expect(next.state.reply).toBeNull();
  });

  it('a reply parked twice resumes twice and still has one REPLY_START and one REPLY_END', async () => {
    const { agent, resume } = setup(
      [
        { toolCalls: [writeCall] },
        { toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] },
        { text: 'all done' },
      ],
      [makeWriteNote(), deploy],
      { permission: { rules: [allowDeploy] } },
      mode,
    );
    const first = await collect(agent.replyStream('write, then deploy'));
    const replyId = replyIdOf(first);
    let next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyId, asked(first))));
    expect(types(second).at(-1)).toBe('REQUIRE_EXTERNAL_EXECUTION');
    next = resume(next);
    const call = submitted(second)[0]!;
    const third = await collect(
      next.replyStream(external(replyId, [resultFor(call, 'ok', { url: 'https://x' })])),
    );
    const all = [...first, ...second, ...third];
    expect(ofType(all, 'REPLY_START')).toHaveLength(1);
    expect(ofType(all, 'REPLY_END')).toEqual([
      expect.objectContaining({ finishedReason: 'completed', replyId }),
    ]);
    expect(types(third).at(-1)).toBe('REPLY_END');
    expect(textOf(next.state.context.at(-1)!)).toBe('all done');
  });

  it('everything needed to resume is in agent.state (a JSON round trip resumes the same)', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [{ toolCalls: [writeCall] }, { text: 'done' }],
      [makeWriteNote(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('write'));
    const stored = roundTrip(agent.state);
    expect(stored).toEqual(agent.state);
    const { agent: fresh } = setup([{ text: 'done' }], [makeWriteNote(log)], { state: stored });
    const end = await fresh.reply(confirm(replyIdOf(first), asked(first)));
    expect(textOf(end)).toBe('done');
    expect(log).toEqual(['a.txt=hi']);
  });

  it('USER_INTERRUPT ends a parked reply with REPLY_END(interrupted)', async () => {
    const { agent, model, resume } = setup(
      [{ toolCalls: [writeCall] }],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('write'));
    const next = resume(agent);
    const events = await collect(
      next.replyStream(userInterruptEvent({ replyId: replyIdOf(first) })),
    );
    expect(types(events).at(-1)).toBe('REPLY_END');
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('interrupted');
    expect(types(events)).not.toContain('REPLY_START');
    expect(model.requests).toHaveLength(1);
    expect(next.state.reply).toBeNull();
    expect(next.state.context.at(-1)!.finishedReason).toBe('interrupted');
  });

  it('after a parked reply ends, a new input starts a new reply', async () => {
    const { agent, resume } = setup(
      [{ toolCalls: [writeCall] }, { text: 'done' }, { text: 'hello again' }],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('write'));
    const next = resume(agent);
    await next.reply(confirm(replyIdOf(first), asked(first)));
    const events = await collect(next.replyStream('hi'));
    expect(types(events)[0]).toBe('REPLY_START');
    expect(replyIdOf(events)).not.toBe(replyIdOf(first));
    expect(next.state.context.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });
});

describe('answering from inside the stream loop (SPEC 1)', () => {
  it('the agent is parked and free when a REQUIRE_* event arrives, so the caller may answer at once', async () => {
    const log: string[] = [];
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'done' }], [makeWriteNote(log)]);
    const inner: string[] = [];
    for await (const event of agent.replyStream('write')) {
      if (event.type === 'REQUIRE_USER_CONFIRM') {
        expect(agent.state.reply?.status).toBe('parked');
        const resumed = await collect(agent.replyStream(confirm(event.replyId, event.toolCalls)));
        inner.push(...types(resumed));
      }
    }
    expect(inner.at(-1)).toBe('REPLY_END');
    expect(log).toEqual(['a.txt=hi']);
    expect(agent.state.reply).toBeNull();
  });
});

describe('calls that asked stay in the reply message while parked (SPEC 1, 2)', () => {
  it('the parked reply message holds the call as asking, with its suggested rules', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }], [makeWriteNote()]);
    await agent.reply('write');
    const blocks = agent.state.context.at(-1)!.content as ToolCallBlock[];
    expect(blocks).toEqual([
      {
        type: 'tool_call',
        id: 'w1',
        name: 'write_note',
        input: JSON.stringify(writeCall.input),
        state: 'asking',
        suggestedRules: [
          { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'suggested' },
        ],
      },
    ]);
  });
});
