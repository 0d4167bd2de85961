import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../errors/index.js';
import type { ToolCallBlock, ToolResultBlock } from '../message/index.js';
import {
  decodeEvent,
  hintBlockEvent,
  isAgentEventType,
  parseAgentEvent,
  parseInputEvent,
  replyEndEvent,
  replyStartEvent,
  requireUserConfirmEvent,
  userInterruptEvent,
} from './index.js';
import { thrownBy } from '../../test/thrown.js';

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

const eventError = (run: () => unknown): InvalidEventError => thrownBy(InvalidEventError, run);

const confirm = (confirmResult: unknown) => ({
  type: 'USER_CONFIRM_RESULT',
  replyId,
  confirmResults: [confirmResult],
});
const external = (executionResult: unknown) => ({
  type: 'EXTERNAL_EXECUTION_RESULT',
  replyId,
  executionResults: [executionResult],
});

describe('event codec: malformed input events', () => {
  const cases: [string, unknown, string, string][] = [
    ['text that is not JSON', '{"type": "USER_INTERRUPT",', '', 'not valid JSON'],
    ['an array', [], '', 'expected an event object, received array'],
    ['null', null, '', 'received null'],
    ['JSON text of a number', '42', '', 'received number'],
    ['no type', { replyId }, 'type', 'required field is missing'],
    [
      'an unknown type',
      { type: 'USER_CONFIRM', replyId },
      'type',
      'USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT, USER_INTERRUPT',
    ],
    [
      'an output event type',
      { type: 'REPLY_START', replyId },
      'type',
      'an output event, not an input event',
    ],
    ['a type that is not a string', { type: 7, replyId }, 'type', 'unknown event type number'],
    [
      'no replyId',
      { type: 'USER_INTERRUPT' },
      'replyId',
      'required field is missing (expected string)',
    ],
    [
      'a misspelt key',
      { type: 'USER_INTERRUPT', replyId, replyID: replyId },
      'replyID',
      'unknown key "replyID"',
    ],
    [
      'a misspelt required key',
      { type: 'USER_INTERRUPT', replyID: replyId },
      'replyId',
      'also replyID: unknown key "replyID"',
    ],
    [
      'metadata that is an array',
      { type: 'USER_INTERRUPT', replyId, metadata: [] },
      'metadata',
      'expected object, received array',
    ],
    [
      'confirmResults not an array',
      { type: 'USER_CONFIRM_RESULT', replyId, confirmResults: {} },
      'confirmResults',
      'expected array, received object',
    ],
    [
      'a tool call input that is not text',
      confirm({ confirmed: true, toolCall: { ...call, input: { command: 'ls' } } }),
      'confirmResults.0.toolCall.input',
      'expected string, received object',
    ],
    [
      'confirmed as a string',
      confirm({ confirmed: 'yes', toolCall: call }),
      'confirmResults.0.confirmed',
      'expected boolean, received string "yes"',
    ],
    [
      'no toolCall',
      confirm({ confirmed: true }),
      'confirmResults.0.toolCall',
      'required field is missing (expected object)',
    ],
    [
      'a bad tool call state',
      confirm({ confirmed: true, toolCall: { ...call, state: 'waiting' } }),
      'confirmResults.0.toolCall.state',
      'expected one of "pending" | "asking" | "allowed" | "submitted" | "finished", received string "waiting"',
    ],
    [
      'a bad rule behaviour',
      confirm({
        confirmed: true,
        toolCall: call,
        rules: [{ ...call.suggestedRules[0], behavior: 'always' }],
      }),
      'confirmResults.0.rules.0.behavior',
      'received string "always"',
    ],
    [
      'a reason that is not text',
      confirm({ confirmed: false, toolCall: call, reason: 3 }),
      'confirmResults.0.reason',
      'expected string, received number 3',
    ],
    [
      'an extra key on a confirm result',
      confirm({ confirmed: true, toolCall: call, remember: true }),
      'confirmResults.0.remember',
      'unknown key "remember"',
    ],
    [
      'an output of the wrong kind',
      external({ ...result, output: 42 }),
      'executionResults.0.output',
      'expected string or array, received number 42',
    ],
    [
      'an output block of an unknown type',
      external({ ...result, output: [{ type: 'image', url: 'x' }] }),
      'executionResults.0.output.0.type',
      'expected one of "text" | "data", received string "image"',
    ],
    [
      'a text block without text',
      external({ ...result, output: [{ type: 'text' }] }),
      'executionResults.0.output.0.text',
      'required field is missing',
    ],
    [
      'a data block with a half source',
      external({
        ...result,
        output: [{ type: 'data', source: { type: 'url', mediaType: 'image/png' } }],
      }),
      'executionResults.0.output.0.source.url',
      'required field is missing',
    ],
    [
      'a result state that is not one',
      external({ ...result, state: 'ok' }),
      'executionResults.0.state',
      'received string "ok"',
    ],
    [
      'result metadata that is a string',
      external({ ...result, metadata: 'none' }),
      'executionResults.0.metadata',
      'expected object, received string "none"',
    ],
    [
      'a tool result of the wrong block type',
      external({ ...result, type: 'tool_call' }),
      'executionResults.0.type',
      'expected "tool_result", received string "tool_call"',
    ],
  ];

  it.each(cases)('%s', (_name, value, path, problem) => {
    const error = eventError(() => parseInputEvent(value));
    expect(error.path).toBe(path);
    expect(error.code).toBe('invalid_event');
    expect(error.message).toContain(problem);
    // The two-way decoder refuses it the same way (unless it is a fine output event).
    if (path !== 'type' || !isAgentEventType((value as { type?: unknown }).type)) {
      expect(eventError(() => decodeEvent(value)).path).toBe(path);
    }
  });

  it('names the first problem and lists a few others', () => {
    const error = eventError(() =>
      parseInputEvent({
        type: 'USER_INTERRUPT',
        replyId: 1,
        id: 2,
        createdAt: 3,
        metadata: 4,
        x: 5,
      }),
    );
    expect(error.path).toBe('id');
    expect(error.message).toContain('; also createdAt: expected string, received number 3');
    expect(error.message).toContain('; and 1 more problem');
  });

  it('reads an optional field given as undefined as absent, as JSON would', () => {
    const event = parseInputEvent({ type: 'USER_INTERRUPT', replyId, id: undefined });
    expect(event).toEqual({ type: 'USER_INTERRUPT', replyId });
    expect('id' in event).toBe(false);
  });

  it('refuses a "__proto__" key a copy would drop, keeps one it would not, never pollutes', () => {
    const text = '{"type":"USER_INTERRUPT","replyId":"r","__proto__":{"polluted":true}}';
    expect(eventError(() => parseInputEvent(text)).path).toBe('__proto__');
    const inMetadata = '{"type":"USER_INTERRUPT","replyId":"r","metadata":{"__proto__":false}}';
    const error = eventError(() => parseInputEvent(inMetadata));
    expect(error.path).toBe('metadata.__proto__');
    expect(error.message).toContain('the key "__proto__" is not allowed');
    expect(eventError(() => decodeEvent(inMetadata)).path).toBe('metadata.__proto__');
    // Inside a metadata value nothing is copied, so the key stays as sent.
    const inValue =
      '{"type":"USER_INTERRUPT","replyId":"r","metadata":{"a":[{"__proto__":false}]}}';
    expect(parseInputEvent(inValue)).toStrictEqual(JSON.parse(inValue));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('keeps the zod error as the cause', () => {
    const error = eventError(() => parseInputEvent({ type: 'USER_INTERRUPT', replyId: 5 }));
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('event codec: malformed output events', () => {
  const start = replyStartEvent({ replyId, sessionId: 's1', name: 'assistant', role: 'assistant' });

  it('refuses an output event missing its common fields', () => {
    const { id: _id, ...withoutId } = start;
    expect(eventError(() => parseAgentEvent(withoutId)).path).toBe('id');
    expect(eventError(() => decodeEvent({ ...start, metadata: null })).path).toBe('metadata');
  });

  it('refuses an input event where an output event is expected', () => {
    const error = eventError(() => parseAgentEvent(userInterruptEvent({ replyId })));
    expect(error.path).toBe('type');
    expect(error.message).toContain('an input event, not an output event');
    expect(error.message).toContain('REPLY_START');
  });

  it('lists the types of both directions for an unknown type', () => {
    const error = eventError(() => decodeEvent({ type: 'REPLY_PAUSE' }));
    expect(error.path).toBe('type');
    expect(error.message).toContain('REQUIRE_EXTERNAL_EXECUTION');
    expect(error.message).toContain('USER_INTERRUPT');
  });

  it('reports bad fields deep inside output events', () => {
    const confirm = requireUserConfirmEvent({ replyId, toolCalls: [call] });
    const bad = { ...confirm, toolCalls: [{ ...call, suggestedRules: [{ toolName: 'Bash' }] }] };
    expect(eventError(() => decodeEvent(bad)).path).toBe(
      'toolCalls.0.suggestedRules.0.ruleContent',
    );
    const hint = hintBlockEvent({ replyId, blockId: 'b', hint: 'x' });
    expect(eventError(() => decodeEvent({ ...hint, hint: [{ type: 'text', text: 1 }] })).path).toBe(
      'hint.0.text',
    );
    const end = replyEndEvent({ replyId, sessionId: 's', finishedReason: 'completed' });
    expect(eventError(() => decodeEvent({ ...end, finishedReason: 'done' })).path).toBe(
      'finishedReason',
    );
    expect(eventError(() => decodeEvent({ ...end, role: 'assistant' })).path).toBe('role');
  });
});
