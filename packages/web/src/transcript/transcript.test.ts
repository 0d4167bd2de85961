import type { AgentEvent } from '@parley/core';
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../api/client.js';
import { emptyTranscript, foldEvent, isRunning, transcriptOfMessages } from './transcript.js';

const base = { createdAt: '2026-12-03T12:00:00.000Z', metadata: {}, replyId: 'r1' };
let next = 0;
const id = () => `e${(next += 1)}`;

/** One reply's events: text, thinking, a call that parks for confirmation, then its result. */
const events: AgentEvent[] = [
  { ...base, id: id(), type: 'REPLY_START', sessionId: 's', name: 'assistant', role: 'assistant' },
  { ...base, id: id(), type: 'THINKING_BLOCK_START', blockId: 'k' },
  { ...base, id: id(), type: 'THINKING_BLOCK_DELTA', blockId: 'k', delta: 'Plan.' },
  { ...base, id: id(), type: 'TEXT_BLOCK_START', blockId: 't' },
  { ...base, id: id(), type: 'TEXT_BLOCK_DELTA', blockId: 't', delta: 'Running ' },
  { ...base, id: id(), type: 'TEXT_BLOCK_DELTA', blockId: 't', delta: 'the tests.' },
  { ...base, id: id(), type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'Bash' },
  { ...base, id: id(), type: 'TOOL_CALL_DELTA', toolCallId: 'c', delta: '{"command":' },
  { ...base, id: id(), type: 'TOOL_CALL_DELTA', toolCallId: 'c', delta: '"npm test"}' },
  {
    ...base,
    id: id(),
    type: 'REQUIRE_USER_CONFIRM',
    metadata: {
      permissionAsks: {
        c: { message: 'Bash wants to run npm test', decisionReason: 'not read-only' },
      },
    },
    toolCalls: [
      {
        type: 'tool_call',
        id: 'c',
        name: 'Bash',
        input: '{"command":"npm test"}',
        state: 'asking',
        suggestedRules: [],
      },
    ],
  },
  { ...base, id: id(), type: 'TOOL_RESULT_START', toolCallId: 'c', toolCallName: 'Bash' },
  { ...base, id: id(), type: 'TOOL_RESULT_TEXT_DELTA', toolCallId: 'c', delta: '3 passed' },
  { ...base, id: id(), type: 'TOOL_RESULT_END', toolCallId: 'c', state: 'success', metadata: {} },
  { ...base, id: id(), type: 'REPLY_END', sessionId: 's', finishedReason: 'completed' },
];

const foldAll = (list: readonly AgentEvent[], from = emptyTranscript, firstSeq = 1) =>
  list.reduce((transcript, event, index) => foldEvent(transcript, firstSeq + index, event), from);

describe('the transcript', () => {
  it('builds a reply from its events: text, thinking, the call with its input, why it asked, and its result', () => {
    const parked = foldAll(events.slice(0, 10));
    expect(isRunning(parked)).toBe(false);
    const reply = parked.entries[0];
    expect(reply).toMatchObject({ kind: 'reply', id: 'r1', status: 'parked' });
    expect(reply?.kind === 'reply' ? reply.blocks : []).toEqual([
      { kind: 'thinking', id: 'k', text: 'Plan.' },
      { kind: 'text', id: 't', text: 'Running the tests.' },
      {
        kind: 'call',
        id: 'c',
        call: {
          id: 'c',
          name: 'Bash',
          input: '{"command":"npm test"}',
          waiting: 'confirm',
          ask: 'Bash wants to run npm test (not read-only)',
        },
      },
    ]);
    const done = foldAll(events.slice(10), parked, 11);
    const call = done.entries[0]?.kind === 'reply' ? done.entries[0].blocks[2] : undefined;
    expect(call).toMatchObject({ call: { result: { state: 'success', text: '3 passed' } } });
    expect(call?.kind === 'call' ? call.call.waiting : 'gone').toBeUndefined();
    expect(done.entries[0]).toMatchObject({ status: 'done', finishedReason: 'completed' });
    expect(done.lastSeq).toBe(events.length);
  });

  it('ignores an event numbered at or below the last one folded, so a replay shows nothing twice', () => {
    const once = foldAll(events);
    const replayed = foldAll(events, once);
    expect(replayed).toBe(once);
    const resumedFromSix = foldAll(events.slice(5), foldAll(events.slice(0, 6)), 6);
    expect(resumedFromSix).toEqual(once);
  });

  it("puts stored messages in order and lets a reply's events replace its stored text", () => {
    const messages: StoredMessage[] = [
      { id: 'u1', name: 'ada', role: 'user', content: 'run the tests' },
      {
        id: 'r1',
        name: 'assistant',
        role: 'assistant',
        content: [{ type: 'text', text: 'stored text' }],
        finishedReason: 'completed',
      },
      { id: 'u2', name: 'ada', role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ];
    const stored = transcriptOfMessages(messages);
    expect(stored.entries.map((entry) => entry.kind)).toEqual(['user', 'reply', 'user']);
    expect(stored.entries[1]).toMatchObject({
      source: 'stored',
      blocks: [{ kind: 'text', text: 'stored text' }],
    });
    const replayed = foldAll(events, stored);
    expect(replayed.entries.map((entry) => entry.id)).toEqual(['u1', 'r1', 'u2']);
    const reply = replayed.entries[1];
    expect(reply?.kind === 'reply' ? reply.blocks.map((block) => block.kind) : []).toEqual([
      'thinking',
      'text',
      'call',
    ]);
  });

  it('marks redacted thinking blocks, from events and from stored messages, each its own block', () => {
    const redacted: AgentEvent[] = [
      { ...base, id: id(), type: 'REPLY_START', sessionId: 's', name: 'a', role: 'assistant' },
      { ...base, id: id(), type: 'THINKING_BLOCK_START', blockId: 'x1', redacted: true },
      { ...base, id: id(), type: 'THINKING_BLOCK_END', blockId: 'x1' },
      { ...base, id: id(), type: 'THINKING_BLOCK_START', blockId: 'x2', redacted: true },
      { ...base, id: id(), type: 'THINKING_BLOCK_END', blockId: 'x2' },
    ];
    const reply = foldAll(redacted).entries[0];
    expect(reply?.kind === 'reply' ? reply.blocks : []).toEqual([
      { kind: 'thinking', id: 'x1', text: '', redacted: true },
      { kind: 'thinking', id: 'x2', text: '', redacted: true },
    ]);
    const stored = transcriptOfMessages([
      {
        id: 'r9',
        name: 'assistant',
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '', redactedData: 'EmwKAhgB' },
          { type: 'thinking', thinking: 'Plan.', signature: 'sig' },
        ],
      },
    ]);
    expect(stored.entries[0]).toMatchObject({
      blocks: [
        { kind: 'thinking', text: '', redacted: true },
        { kind: 'thinking', text: 'Plan.' },
      ],
    });
  });

  it('adds a reply it has not seen at the end, running until it parks or ends', () => {
    const running = foldAll(events.slice(0, 5));
    expect(isRunning(running)).toBe(true);
    expect(running.entries).toHaveLength(1);
  });
});
