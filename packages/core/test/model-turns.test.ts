import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Toolkit, agentTexts, tool } from '../src/index.js';
import type {
  AgentState,
  AnyTool,
  ChatChunk,
  ChatModel,
  ChatRequest,
  ContentBlock,
  Msg,
  ThinkingBlock,
} from '../src/index.js';
import {
  asked,
  collect,
  confirm,
  lastBlocks,
  makeLookup,
  makeWriteNote,
  ofType,
  replyIdOf,
  roundTrip,
  storedResults,
  types,
} from './support.js';

/** A model that plays raw chunk lists, one per request, and records the requests. */
class ChunkModel implements ChatModel {
  readonly name = 'chunks';
  readonly requests: ChatRequest[] = [];
  constructor(private readonly turns: ChatChunk[][]) {}
  async *stream(request: ChatRequest): AsyncGenerator<ChatChunk> {
    this.requests.push(structuredClone(request));
    const turn = this.turns.shift();
    if (turn === undefined) throw new Error('no turn left');
    for (const chunk of turn) yield chunk;
  }
}

const call = (id: string, name: string, input: string, end = true): ChatChunk[] => [
  { type: 'tool_call_start', id, name },
  ...(input === '' ? [] : [{ type: 'tool_call_delta' as const, id, delta: input }]),
  ...(end ? [{ type: 'tool_call_end' as const, id }] : []),
];
const finish = (finishedReason: string): ChatChunk => ({ type: 'finish', finishedReason });
const done: ChatChunk[] = [{ type: 'text_delta', delta: 'done' }, finish('stop')];

function agentWith(
  model: ChatModel,
  tools: AnyTool[] = [makeWriteNote(), makeLookup()],
  state?: AgentState,
) {
  return new Agent({
    name: 'assistant',
    model,
    toolkit: new Toolkit(tools),
    ...(state === undefined ? {} : { state }),
  });
}

const thinkingBlocks = (blocks: ContentBlock[]): ThinkingBlock[] =>
  blocks.filter((block): block is ThinkingBlock => block.type === 'thinking');

/** The reply message a request carried (the last one), its blocks without ids. */
function replyBlocksSeen(request: ChatRequest | undefined): unknown[] {
  const reply: Msg | undefined = request?.messages.at(-1);
  if (reply === undefined || typeof reply.content === 'string') return [];
  return reply.content.map((block) => {
    if (block.type !== 'thinking') return block.type;
    const { id: _id, ...rest } = block;
    return rest;
  });
}

describe('thinking blocks as the provider sent them', () => {
  it('keeps a signature-only block, and sends it back before the tool call', async () => {
    const model = new ChunkModel([
      [
        { type: 'thinking_signature', signature: 'sig-omitted' },
        ...call('l1', 'lookup', '{"key":"a"}'),
        finish('tool_calls'),
      ],
      done,
    ]);
    const agent = agentWith(model);
    const events = await collect(agent.replyStream('look a up'));
    expect(types(events).slice(2, 4)).toEqual(['THINKING_BLOCK_START', 'THINKING_BLOCK_END']);
    expect(thinkingBlocks(lastBlocks(agent))).toEqual([
      { type: 'thinking', thinking: '', id: expect.any(String), signature: 'sig-omitted' },
    ]);
    expect(replyBlocksSeen(model.requests[1])).toEqual([
      { type: 'thinking', thinking: '', signature: 'sig-omitted' },
      'tool_call',
      'tool_result',
    ]);
  });

  it('never merges consecutive blocks, nor lets a signature overwrite an earlier one', async () => {
    const model = new ChunkModel([
      [
        { type: 'thinking_delta', delta: 'first' },
        { type: 'thinking_signature', signature: 's1' },
        { type: 'thinking_delta', delta: 'second' },
        { type: 'thinking_signature', signature: 's2' },
        { type: 'text_delta', delta: 'so' },
        { type: 'thinking_signature', signature: 's3' },
        finish('stop'),
      ],
    ]);
    const agent = agentWith(model);
    await agent.reply('think');
    expect(lastBlocks(agent).map((block) => block.type)).toEqual([
      'thinking',
      'thinking',
      'text',
      'thinking',
    ]);
    expect(
      thinkingBlocks(lastBlocks(agent)).map(({ thinking, signature }) => [thinking, signature]),
    ).toEqual([
      ['first', 's1'],
      ['second', 's2'],
      ['', 's3'],
    ]);
  });

  it('keeps redacted blocks in place, marks them in events, and sends them back after park, JSON and resume', async () => {
    const data1 = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP+/=';
    const data2 = 'EmwKAhgBEgyZ\u00e9\u2028opaque';
    const model = new ChunkModel([
      [
        { type: 'redacted_thinking', data: data1 },
        { type: 'redacted_thinking', data: data2 },
        { type: 'thinking_delta', delta: 'visible' },
        { type: 'thinking_signature', signature: 'sig-v' },
        ...call('w1', 'write_note', '{"path":"a.md","content":"x"}'),
        finish('tool_calls'),
      ],
      done,
    ]);
    const first = agentWith(model);
    const events = await collect(first.replyStream('write it'));
    const starts = ofType(events, 'THINKING_BLOCK_START');
    expect(starts.map((event) => event.redacted)).toEqual([true, true, undefined]);
    expect(ofType(events, 'THINKING_BLOCK_DELTA').map((event) => event.delta)).toEqual(['visible']);
    const parked = asked(events);
    expect(parked.map((block) => block.id)).toEqual(['w1']);

    const revived = agentWith(model, undefined, roundTrip(first.state));
    await revived.reply(confirm(replyIdOf(events), parked));
    const expected = [
      { type: 'thinking', thinking: '', redactedData: data1 },
      { type: 'thinking', thinking: '', redactedData: data2 },
      { type: 'thinking', thinking: 'visible', signature: 'sig-v' },
      'tool_call',
      'tool_result',
    ];
    expect(replyBlocksSeen(model.requests[1])).toEqual(expected);
    expect(JSON.stringify(model.requests[1])).toContain(JSON.stringify(data2));
  });
});

describe('tool calls cut off by the token limit', () => {
  const optionalOnly = (log: string[]) =>
    tool({
      name: 'list_notes',
      description: 'List notes.',
      input: z.object({ folder: z.string().optional() }),
      readOnly: true,
      execute: ({ folder }) => {
        log.push(folder ?? '(default)');
        return 'a.md';
      },
    });

  it('never offers or runs a call cut before any argument; the model reads why', async () => {
    const log: string[] = [];
    const model = new ChunkModel([
      [...call('w1', 'write_note', ''), finish('length')],
      [...call('n1', 'list_notes', ''), finish('length')],
      done,
    ]);
    const agent = agentWith(model, [makeWriteNote(log), optionalOnly(log)]);
    const events = await collect(agent.replyStream('write'));
    expect(asked(events)).toEqual([]);
    expect(log).toEqual([]);
    expect(storedResults(agent).map(({ id, state, output }) => ({ id, state, output }))).toEqual([
      { id: 'w1', state: 'error', output: agentTexts.cutOff('write_note') },
      { id: 'n1', state: 'error', output: agentTexts.cutOff('list_notes') },
    ]);
    expect(model.requests).toHaveLength(3);
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('runs the complete calls before the cut, and not the one cut, even if closed', async () => {
    const log: string[] = [];
    const model = new ChunkModel([
      [
        ...call('l1', 'lookup', '{"key":"a"}'),
        ...call('w1', 'write_note', '{"path":"a.md","content":"x"}'),
        finish('length'),
      ],
      done,
    ]);
    const agent = agentWith(model, [makeWriteNote(log), makeLookup(log)]);
    const events = await collect(agent.replyStream('both'));
    expect(asked(events)).toEqual([]);
    expect(log).toEqual(['a']);
    expect(storedResults(agent).map(({ id, state }) => ({ id, state }))).toEqual([
      { id: 'w1', state: 'error' },
      { id: 'l1', state: 'success' },
    ]);
  });

  it('cuts a call the model never ended, wherever it is in the turn', async () => {
    const log: string[] = [];
    const model = new ChunkModel([
      [
        ...call('l1', 'lookup', '{"key":', false),
        { type: 'text_delta', delta: 'and' },
        finish('length'),
      ],
      done,
    ]);
    const agent = agentWith(model, [makeLookup(log)]);
    await agent.reply('go');
    expect(log).toEqual([]);
    expect(storedResults(agent)[0]).toMatchObject({ id: 'l1', state: 'error' });
  });
});
