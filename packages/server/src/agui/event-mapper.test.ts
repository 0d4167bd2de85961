import { EventType } from '@ag-ui/core';
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { makeEvent } from '@parley/core';
import type { AgentEvent, Msg } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { AguiEventMapper, callsMessageId, toolMessageId } from './event-mapper.js';
import { snapshotMessages } from './messages.js';

const replyId = 'reply-1';

/** A reply: thinking, text, two calls, one result streamed, one denied, then usage. */
const reply: AgentEvent[] = [
  makeEvent('REPLY_START', { replyId, sessionId: 's', name: 'assistant', role: 'assistant' }),
  makeEvent('MODEL_CALL_START', { replyId, modelName: 'm' }),
  makeEvent('THINKING_BLOCK_START', { replyId, blockId: 'think-1' }),
  makeEvent('THINKING_BLOCK_DELTA', { replyId, blockId: 'think-1', delta: 'hmm' }),
  makeEvent('THINKING_BLOCK_END', { replyId, blockId: 'think-1' }),
  makeEvent('TEXT_BLOCK_START', { replyId, blockId: 'text-1' }),
  makeEvent('TEXT_BLOCK_DELTA', { replyId, blockId: 'text-1', delta: 'Writing ' }),
  makeEvent('TEXT_BLOCK_DELTA', { replyId, blockId: 'text-1', delta: 'two.' }),
  makeEvent('TEXT_BLOCK_END', { replyId, blockId: 'text-1' }),
  makeEvent('TOOL_CALL_START', { replyId, toolCallId: 'a', toolCallName: 'write' }),
  makeEvent('TOOL_CALL_DELTA', { replyId, toolCallId: 'a', delta: '{"x":1}' }),
  makeEvent('TOOL_CALL_END', { replyId, toolCallId: 'a' }),
  makeEvent('TOOL_CALL_START', { replyId, toolCallId: 'b', toolCallName: 'write' }),
  makeEvent('TOOL_CALL_END', { replyId, toolCallId: 'b' }),
  makeEvent('MODEL_CALL_END', {
    replyId,
    inputTokens: 10,
    outputTokens: 5,
    finishedReason: 'tool_calls',
  }),
  makeEvent('TOOL_RESULT_START', { replyId, toolCallId: 'a', toolCallName: 'write' }),
  makeEvent('TOOL_RESULT_TEXT_DELTA', { replyId, toolCallId: 'a', delta: 'wrote ' }),
  makeEvent('TOOL_RESULT_TEXT_DELTA', { replyId, toolCallId: 'a', delta: 'x' }),
  makeEvent('TOOL_RESULT_END', { replyId, toolCallId: 'a', state: 'success', metadata: {} }),
  makeEvent('TOOL_RESULT_START', { replyId, toolCallId: 'b', toolCallName: 'write' }),
  makeEvent('TOOL_RESULT_TEXT_DELTA', { replyId, toolCallId: 'b', delta: 'denied' }),
  makeEvent('TOOL_RESULT_END', { replyId, toolCallId: 'b', state: 'denied', metadata: {} }),
  makeEvent('MODEL_CALL_START', { replyId, modelName: 'm' }),
  makeEvent('TOOL_CALL_START', { replyId, toolCallId: 'c', toolCallName: 'write' }),
  makeEvent('TOOL_CALL_END', { replyId, toolCallId: 'c' }),
  makeEvent('MODEL_CALL_END', {
    replyId,
    inputTokens: 3,
    outputTokens: 2,
    finishedReason: 'tool_calls',
  }),
  makeEvent('REPLY_END', { replyId, sessionId: 's', finishedReason: 'completed' }),
];

function mapAll(events: AgentEvent[]): { out: BaseEvent[]; mapper: AguiEventMapper } {
  const mapper = new AguiEventMapper();
  const out: BaseEvent[] = events.flatMap((event) => mapper.map(event));
  out.push(...mapper.close());
  return { out, mapper };
}

describe('AguiEventMapper', () => {
  it("maps text, reasoning, tool calls, results and steps onto AG-UI's events, each valid", () => {
    const { out, mapper } = mapAll(reply);
    for (const event of out) expect(EventSchemas.safeParse(event).success).toBe(true);
    expect(out.map((event) => event.type)).toEqual([
      EventType.CUSTOM,
      EventType.STEP_STARTED,
      EventType.REASONING_START,
      EventType.REASONING_MESSAGE_START,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_END,
      EventType.REASONING_END,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_END,
      EventType.STEP_FINISHED,
      EventType.TOOL_CALL_RESULT,
      EventType.TOOL_CALL_RESULT,
      EventType.STEP_STARTED,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_END,
      EventType.STEP_FINISHED,
      EventType.CUSTOM,
    ]);
    const starts = out.filter((event) => event.type === EventType.TOOL_CALL_START);
    // Calls after text hang on the text's message; a call in a later turn with no text gets its own.
    expect(starts.map((event) => event['parentMessageId'])).toEqual([
      'text-1',
      'text-1',
      callsMessageId('c'),
    ]);
    const results = out.filter((event) => event.type === EventType.TOOL_CALL_RESULT);
    expect(results).toEqual([
      expect.objectContaining({
        messageId: toolMessageId('a'),
        toolCallId: 'a',
        content: 'wrote x',
      }),
      expect.objectContaining({
        toolCallId: 'b',
        content: 'denied',
        metadata: { parley: { state: 'denied' } },
      }),
    ]);
    expect(mapper.usage()).toEqual([
      { model: 'm', inputTokens: 13, outputTokens: 7, totalTokens: 20 },
    ]);
    expect(mapper.error()).toBeUndefined();
    expect(out.at(-1)).toMatchObject({ name: 'parley.REPLY_END' });
  });

  it('closes what a stopped reply left open, and reads errors and interruptions off REPLY_END', () => {
    const cut = mapAll(reply.slice(0, 7));
    expect(cut.out.slice(-3).map((event) => event.type)).toEqual([
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.STEP_FINISHED,
    ]);
    const failed = mapAll([
      makeEvent('REPLY_END', {
        replyId,
        sessionId: 's',
        finishedReason: 'error',
        error: { type: 'ModelError', message: 'boom' },
      }),
    ]);
    expect(failed.mapper.error()).toEqual({ message: 'boom', code: 'ModelError' });
    const stopped = mapAll([
      makeEvent('REPLY_END', { replyId, sessionId: 's', finishedReason: 'interrupted' }),
    ]);
    expect(stopped.mapper.endedInterrupted()).toBe(true);
  });

  it('does not send back a result the client gave as its own tool message', () => {
    const { out } = mapAll([
      makeEvent('TOOL_RESULT_START', { replyId, toolCallId: 'g', toolCallName: 'greet' }),
      makeEvent('TOOL_RESULT_TEXT_DELTA', { replyId, toolCallId: 'g', delta: 'hi' }),
      makeEvent('TOOL_RESULT_END', {
        replyId,
        toolCallId: 'g',
        state: 'success',
        metadata: { agui: { messageId: 'client-msg' } },
      }),
    ]);
    expect(out).toEqual([]);
  });

  it('names messages in the snapshot as it named them while streaming', () => {
    const stored: Msg[] = [
      { id: 'u1', name: 'user', role: 'user', content: 'write two' },
      {
        id: replyId,
        name: 'assistant',
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', id: 'think-1' },
          { type: 'text', text: 'Writing two.', id: 'text-1' },
          {
            type: 'tool_call',
            id: 'a',
            name: 'write',
            input: '{"x":1}',
            state: 'finished',
            suggestedRules: [],
          },
          {
            type: 'tool_call',
            id: 'b',
            name: 'write',
            input: '{}',
            state: 'finished',
            suggestedRules: [],
          },
          { type: 'tool_result', id: 'a', name: 'write', output: 'wrote x', state: 'success' },
          { type: 'tool_result', id: 'b', name: 'write', output: 'no', state: 'error' },
          {
            type: 'tool_call',
            id: 'c',
            name: 'write',
            input: '{}',
            state: 'asking',
            suggestedRules: [],
          },
        ],
      },
    ];
    expect(snapshotMessages(stored)).toEqual([
      { id: 'u1', role: 'user', content: 'write two' },
      { id: 'think-1', role: 'reasoning', content: 'hmm' },
      {
        id: 'text-1',
        role: 'assistant',
        content: 'Writing two.',
        toolCalls: [
          { id: 'a', type: 'function', function: { name: 'write', arguments: '{"x":1}' } },
          { id: 'b', type: 'function', function: { name: 'write', arguments: '{}' } },
        ],
      },
      { id: toolMessageId('a'), role: 'tool', toolCallId: 'a', content: 'wrote x' },
      { id: toolMessageId('b'), role: 'tool', toolCallId: 'b', content: 'no', error: 'no' },
      {
        id: callsMessageId('c'),
        role: 'assistant',
        toolCalls: [{ id: 'c', type: 'function', function: { name: 'write', arguments: '{}' } }],
      },
    ]);
  });
});
