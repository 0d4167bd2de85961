import { describe, expect, it } from 'vitest';
import type { ToolCallBlock, ToolResultBlock } from '../message/index.js';
import type { AgentEvent, InputEvent } from './index.js';
import {
  agentEventSchema,
  agentEventTypes,
  dataBlockDeltaEvent,
  dataBlockEndEvent,
  dataBlockStartEvent,
  decodeEvent,
  encodeEvent,
  exceedMaxItersEvent,
  externalExecutionResultEvent,
  hintBlockEvent,
  inputEventSchema,
  inputEventTypes,
  modelCallEndEvent,
  modelCallStartEvent,
  parseAgentEvent,
  parseInputEvent,
  replyEndEvent,
  replyStartEvent,
  requireExternalExecutionEvent,
  requireUserConfirmEvent,
  textBlockDeltaEvent,
  textBlockEndEvent,
  textBlockStartEvent,
  thinkingBlockDeltaEvent,
  thinkingBlockEndEvent,
  thinkingBlockStartEvent,
  toolCallDeltaEvent,
  toolCallEndEvent,
  toolCallStartEvent,
  toolResultDataDeltaEvent,
  toolResultEndEvent,
  toolResultStartEvent,
  toolResultTextDeltaEvent,
  userConfirmResultEvent,
  userInterruptEvent,
} from './index.js';

const replyId = 'reply-1';
const call: ToolCallBlock = {
  type: 'tool_call',
  id: 'tc1',
  name: 'Bash',
  input: '{"command":"git push"}',
  state: 'asking',
  suggestedRules: [
    { toolName: 'Bash', ruleContent: 'git push:*', behavior: 'allow', source: 'suggested' },
  ],
};
const result: ToolResultBlock = {
  type: 'tool_result',
  id: 'tc2',
  name: 'AskUser',
  output: [{ type: 'text', text: 'Auth method: OAuth 2.0' }],
  state: 'success',
  metadata: { answers: [{ question: 'Which auth?', selected: ['OAuth 2.0'], other: null }] },
};

/** One output event of every type (two for types with optional fields). */
const outputEvents: AgentEvent[] = [
  replyStartEvent({ replyId, sessionId: 's1', name: 'assistant', role: 'assistant' }),
  replyEndEvent({ replyId, sessionId: 's1', finishedReason: 'completed' }),
  replyEndEvent({
    replyId,
    sessionId: 's1',
    finishedReason: 'error',
    error: { type: 'ModelError', message: 'rate limited' },
  }),
  modelCallStartEvent({ replyId, modelName: 'scripted' }),
  modelCallEndEvent({ replyId, inputTokens: 120, outputTokens: 7, finishedReason: 'tool_calls' }),
  textBlockStartEvent({ replyId, blockId: 'b1' }),
  textBlockDeltaEvent({ replyId, blockId: 'b1', delta: 'Hello' }),
  textBlockEndEvent({ replyId, blockId: 'b1' }),
  thinkingBlockStartEvent({ replyId, blockId: 'b2' }),
  thinkingBlockStartEvent({ replyId, blockId: 'b2r', redacted: true }),
  thinkingBlockDeltaEvent({ replyId, blockId: 'b2', delta: 'hmm' }),
  thinkingBlockEndEvent({ replyId, blockId: 'b2' }),
  dataBlockStartEvent({ replyId, blockId: 'b3', mediaType: 'image/png' }),
  dataBlockDeltaEvent({ replyId, blockId: 'b3', mediaType: 'image/png', data: 'aGk=' }),
  dataBlockDeltaEvent({ replyId, blockId: 'b3', mediaType: 'image/png', url: 'https://x/y.png' }),
  dataBlockEndEvent({ replyId, blockId: 'b3' }),
  hintBlockEvent({ replyId, blockId: 'b4', hint: 'Stay on topic.' }),
  hintBlockEvent({ replyId, blockId: 'b5', hint: [{ type: 'text', text: 'see:' }] }),
  toolCallStartEvent({ replyId, toolCallId: 'tc1', toolCallName: 'Bash' }),
  toolCallDeltaEvent({ replyId, toolCallId: 'tc1', delta: '{"command":' }),
  toolCallEndEvent({ replyId, toolCallId: 'tc1' }),
  toolResultStartEvent({ replyId, toolCallId: 'tc1', toolCallName: 'Bash' }),
  toolResultTextDeltaEvent({ replyId, toolCallId: 'tc1', delta: 'Everything up-to-date' }),
  toolResultDataDeltaEvent({ replyId, toolCallId: 'tc1', mediaType: 'text/csv', data: 'YSxi' }),
  toolResultEndEvent({ replyId, toolCallId: 'tc1', state: 'success', metadata: { exitCode: 0 } }),
  exceedMaxItersEvent({ replyId, name: 'assistant' }),
  requireUserConfirmEvent({ replyId, toolCalls: [call] }),
  requireExternalExecutionEvent({ replyId, toolCalls: [{ ...call, state: 'submitted' }] }),
];

const inputEvents: InputEvent[] = [
  userConfirmResultEvent({ replyId, confirmResults: [{ confirmed: true, toolCall: call }] }),
  userConfirmResultEvent({
    replyId,
    confirmResults: [
      { confirmed: true, toolCall: call, rules: call.suggestedRules },
      { confirmed: false, toolCall: { ...call, id: 'tc3' }, rules: null, reason: 'not now' },
    ],
    metadata: { answeredBy: 'ana' },
  }),
  externalExecutionResultEvent({ replyId, executionResults: [result] }),
  userInterruptEvent({ replyId }),
  // Plain objects of the documented shape, without id/createdAt/metadata.
  { type: 'USER_INTERRUPT', replyId },
  { type: 'EXTERNAL_EXECUTION_RESULT', replyId, executionResults: [] },
];

describe('event codec: round trip', () => {
  it('has a sample of every output and input event type', () => {
    expect(new Set(outputEvents.map((event) => event.type))).toEqual(new Set(agentEventTypes));
    expect(new Set(inputEvents.map((event) => event.type))).toEqual(new Set(inputEventTypes));
  });

  it.each(outputEvents.map((event) => [event.type, event] as const))(
    '%s survives encode/decode',
    (_type, event) => {
      const text = encodeEvent(event);
      expect(decodeEvent(text)).toEqual(event);
      expect(parseAgentEvent(text)).toEqual(event);
      expect(parseAgentEvent(JSON.parse(text))).toEqual(event);
      expect(agentEventSchema.parse(event)).toEqual(event);
    },
  );

  it.each(inputEvents.map((event, index) => [`${event.type} #${index}`, event] as const))(
    '%s survives encode/decode',
    (_name, event) => {
      const text = encodeEvent(event);
      expect(decodeEvent(text)).toEqual(event);
      expect(parseInputEvent(text)).toEqual(event);
      expect(parseInputEvent(JSON.parse(text))).toEqual(event);
      expect(inputEventSchema.parse(event)).toEqual(event);
    },
  );

  it('returns a copy, not the given object', () => {
    const event = userInterruptEvent({ replyId });
    expect(parseInputEvent(event)).not.toBe(event);
  });
});
