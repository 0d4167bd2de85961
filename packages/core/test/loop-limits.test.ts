import { describe, expect, it } from 'vitest';
import { Agent, ModelError, Toolkit, textOf } from '../src/index.js';
import type { ChatChunk, ChatModel, TextBlock } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import {
  asked,
  collect,
  confirm,
  lastBlocks,
  makeLookup,
  makeWriteNote,
  modes,
  ofType,
  replyIdOf,
  roundTrip,
  setup,
  types,
} from './support.js';

const exceeded = 'The maximum reasoning-acting iterations are exceeded.';
const lookupForever = () =>
  new ScriptedModel([{ toolCalls: [{ name: 'lookup', input: { key: 'again' } }] }], {
    repeatLast: true,
  });

describe('maxIters (SPEC 9)', () => {
  it('defaults to 50 rounds, then EXCEED_MAX_ITERS, the verbatim text and REPLY_END(exceed_max_iters)', async () => {
    const model = lookupForever();
    const agent = new Agent({ model, toolkit: new Toolkit([makeLookup()]) });
    const events = await collect(agent.replyStream('loop'));
    expect(model.requests).toHaveLength(50);
    expect(ofType(events, 'MODEL_CALL_START')).toHaveLength(50);
    expect(types(events).slice(-5)).toEqual([
      'EXCEED_MAX_ITERS',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'REPLY_END',
    ]);
    expect(ofType(events, 'EXCEED_MAX_ITERS')[0]).toMatchObject({ name: 'assistant' });
    expect(ofType(events, 'TEXT_BLOCK_DELTA').at(-1)!.delta).toBe(exceeded);
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('exceed_max_iters');
    expect(agent.state.reply).toBeNull();
  });

  it('a custom maxIters bounds the rounds; reply() returns the message ending with the text', async () => {
    const model = lookupForever();
    const log: string[] = [];
    const agent = new Agent({ model, toolkit: new Toolkit([makeLookup(log)]), maxIters: 3 });
    const message = await agent.reply('loop');
    expect(model.requests).toHaveLength(3);
    expect(log).toHaveLength(3);
    expect(message.finishedReason).toBe('exceed_max_iters');
    const blocks = message.content as TextBlock[];
    expect(blocks.at(-1)).toMatchObject({ type: 'text', text: exceeded });
    expect(agent.state.context.at(-1)!.finishedReason).toBe('exceed_max_iters');
  });

  it('a reply that ends before the limit completes', async () => {
    const { agent, model } = setup(
      [{ toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] }, { text: 'done' }],
      [makeLookup()],
      { maxIters: 2 },
    );
    const events = await collect(agent.replyStream('go'));
    expect(model.requests).toHaveLength(2);
    expect(types(events)).not.toContain('EXCEED_MAX_ITERS');
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('completed');
  });

  it('each reply has its own count', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', input: { key: 'a' } }] },
      { text: 'one' },
      { toolCalls: [{ name: 'lookup', input: { key: 'b' } }] },
      { text: 'two' },
    ]);
    const agent = new Agent({ model, toolkit: new Toolkit([makeLookup()]), maxIters: 2 });
    expect((await agent.reply('first')).finishedReason).toBe('completed');
    expect((await agent.reply('second')).finishedReason).toBe('completed');
  });
});

describe.each(modes)('maxIters across a park (SPEC 9), %s', (mode) => {
  it('rounds before and after a park count for the same reply', async () => {
    const { agent, model, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
        { toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] },
        { text: 'never reached' },
      ],
      [makeWriteNote(), makeLookup()],
      { maxIters: 2 },
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const events = await collect(
      resume(agent).replyStream(confirm(replyIdOf(first), asked(first))),
    );
    expect(model.requests).toHaveLength(2);
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('exceed_max_iters');
    expect(ofType(events, 'EXCEED_MAX_ITERS')).toHaveLength(1);
  });
});

describe('a model error (SPEC 9)', () => {
  it('ends the reply with REPLY_END(error) carrying {type, message}; the stream ends normally', async () => {
    const { agent } = setup([{ error: new ModelError('rate limited', { status: 429 }) }], []);
    const events = await collect(agent.replyStream('hi'));
    expect(types(events)).toEqual(['REPLY_START', 'MODEL_CALL_START', 'REPLY_END']);
    const end = ofType(events, 'REPLY_END')[0]!;
    expect(end.finishedReason).toBe('error');
    expect(end.error).toEqual({ type: 'ModelError', message: 'rate limited' });
    expect(agent.state.reply).toBeNull();
    expect(agent.state.context.at(-1)!.finishedReason).toBe('error');
  });

  it('reply() rejects with the error, after the reply was closed', async () => {
    const failure = new TypeError('socket hang up');
    const { agent } = setup([{ error: failure }], []);
    await expect(agent.reply('hi')).rejects.toBe(failure);
    expect(agent.state.reply).toBeNull();
    expect(agent.state.context.at(-1)!.finishedReason).toBe('error');
  });

  it('a thrown non-Error is described with a type and a message', async () => {
    const model: ChatModel = {
      name: 'odd',
      // eslint-disable-next-line require-yield
      async *stream(): AsyncGenerator<ChatChunk> {
        // A model adapter written in JavaScript may throw anything.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw 'boom';
      },
    };
    const { agent } = setup([], [], { model });
    const end = ofType(await collect(agent.replyStream('hi')), 'REPLY_END')[0]!;
    expect(end.finishedReason).toBe('error');
    expect(end.error?.type).toEqual(expect.any(String));
    expect(end.error?.message).toContain('boom');
  });

  it('the text streamed so far is kept and its block closed; the turn’s tool calls are dropped', async () => {
    const model = new ScriptedModel(
      [
        {
          text: 'Partial answer',
          toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }],
          error: new Error('connection lost'),
          failAfterChunks: 3,
        },
      ],
      { chunkSize: 7 },
    );
    const log: string[] = [];
    const { agent } = setup([], [makeLookup(log)], { model });
    const events = await collect(agent.replyStream('hi'));
    expect(types(events).slice(0, 6)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
    ]);
    expect(types(events).at(-1)).toBe('REPLY_END');
    expect(types(events).filter((type) => type.startsWith('TOOL_RESULT'))).toEqual([]);
    expect(lastBlocks(agent)).toEqual([
      { type: 'text', text: 'Partial answer', id: expect.any(String) },
    ]);
    expect(log).toEqual([]);
  });

  it('a text block still open when the model fails gets its TEXT_BLOCK_END before REPLY_END', async () => {
    const model = new ScriptedModel(
      [{ text: 'hello world', error: new Error('boom'), failAfterChunks: 1 }],
      { chunkSize: 5 },
    );
    const { agent } = setup([], [], { model });
    const events = await collect(agent.replyStream('hi'));
    expect(types(events)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'REPLY_END',
    ]);
    expect(textOf(agent.state.context.at(-1)!)).toBe('hello');
  });

  it('the state stays loadable: a JSON round trip gives a working agent', async () => {
    const model = new ScriptedModel([{ error: new Error('boom') }, { text: 'Back again.' }]);
    const toolkit = new Toolkit([makeLookup()]);
    const agent = new Agent({ model, toolkit });
    await expect(agent.reply('hi')).rejects.toThrow('boom');
    const revived = new Agent({ model, toolkit, state: roundTrip(agent.state) });
    expect(revived.state).toEqual(agent.state);
    const message = await revived.reply('retry');
    expect(textOf(message)).toBe('Back again.');
    expect(model.requests[1]!.messages.map((m) => [m.role, m.finishedReason ?? null])).toEqual([
      ['user', null],
      ['assistant', 'error'],
      ['user', null],
      ['assistant', null],
    ]);
  });

  it.each(modes)(
    'a model error after a resume ends that reply with REPLY_END(error) (%s)',
    async (mode) => {
      const { agent, resume } = setup(
        [
          { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
          { error: new Error('overloaded') },
        ],
        [makeWriteNote()],
        {},
        mode,
      );
      const first = await collect(agent.replyStream('go'));
      const next = resume(agent);
      const events = await collect(next.replyStream(confirm(replyIdOf(first), asked(first))));
      expect(ofType(events, 'REPLY_END')).toEqual([
        expect.objectContaining({
          finishedReason: 'error',
          error: { type: 'Error', message: 'overloaded' },
          replyId: replyIdOf(first),
        }),
      ]);
      expect(next.state.reply).toBeNull();
    },
  );
});
