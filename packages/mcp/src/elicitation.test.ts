import { describe, expect, it } from 'vitest';
import type { ToolCallBlock, ToolResultBlock } from '@parley/core';
import {
  McpElicitation,
  checkMcpElicitationAnswer,
  mcpElicitationResult,
  serverAnswerOf,
} from './elicitation.js';
import type { McpElicitationInput } from './elicitation.js';

const form: McpElicitationInput = {
  server: 'ev',
  tool: 'book',
  mode: 'form',
  message: 'Which room?',
  requestedSchema: {
    type: 'object',
    properties: {
      room: { type: 'string', enum: ['suite', 'single'] },
      nights: { type: 'integer', minimum: 1 },
    },
    required: ['room'],
  },
};
const call: ToolCallBlock = {
  type: 'tool_call',
  id: 'el',
  name: 'McpElicitation',
  input: JSON.stringify(form),
  state: 'submitted',
  suggestedRules: [],
};

describe('McpElicitation answers', () => {
  it('accepted content must fit the requested schema; decline and cancel carry none', () => {
    expect(
      checkMcpElicitationAnswer(form, { action: 'accept', content: { room: 'suite', nights: 2 } }),
    ).toBeUndefined();
    expect(
      checkMcpElicitationAnswer(form, { action: 'accept', content: { room: 'attic' } }),
    ).toMatch(/content does not fit the requested schema/);
    expect(
      checkMcpElicitationAnswer(form, { action: 'accept', content: { nights: 0, room: 'suite' } }),
    ).toMatch(/does not fit/);
    expect(checkMcpElicitationAnswer(form, { action: 'accept' })).toBe(
      'an accepted form answer needs content',
    );
    expect(
      checkMcpElicitationAnswer(form, { action: 'decline', content: { room: 'suite' } }),
    ).toMatch(/carries no content/);
    expect(checkMcpElicitationAnswer(form, { action: 'maybe' })).toMatch(/action/);
    expect(checkMcpElicitationAnswer(form, { action: 'cancel' })).toBeUndefined();
  });

  it('the result for the model says what the person did', () => {
    expect(mcpElicitationResult(call, { action: 'accept', content: { room: 'suite' } })).toEqual({
      type: 'tool_result',
      id: 'el',
      name: 'McpElicitation',
      output: 'The user answered: {"room":"suite"}',
      state: 'success',
      metadata: { action: 'accept', content: { room: 'suite' } },
    });
    expect(mcpElicitationResult(call, { action: 'decline' }).output).toBe(
      'The user declined to answer.',
    );
  });

  it('fails closed: an expired, interrupted or malformed answer reaches the server as cancel', () => {
    const result = (patch: Partial<ToolResultBlock>): ToolResultBlock => ({
      type: 'tool_result',
      id: 'el',
      name: 'McpElicitation',
      output: '',
      state: 'success',
      ...patch,
    });
    expect(
      serverAnswerOf({
        call,
        result: result({
          state: 'interrupted',
          metadata: { action: 'accept', content: { room: 'suite' } },
        }),
      }),
    ).toEqual({ action: 'cancel' });
    expect(
      serverAnswerOf({
        call,
        result: result({ metadata: { action: 'accept', content: { room: 'attic' } } }),
      }),
    ).toEqual({ action: 'cancel' });
    expect(serverAnswerOf({ call, result: result({}) })).toEqual({ action: 'cancel' });
    expect(serverAnswerOf({ call, result: result({ metadata: { action: 'decline' } }) })).toEqual({
      action: 'decline',
    });
  });

  it('the model cannot call McpElicitation itself: its own check denies', async () => {
    const decision = await McpElicitation.checkPermissions(form, {
      mode: 'bypass',
      workingDirectories: [],
      allowRules: [],
      denyRules: [],
      askRules: [],
    });
    expect(decision.behavior).toBe('deny');
  });

  it('a form pattern from the server is matched in linear time ((a+)+$ on 34 characters)', () => {
    const evil: McpElicitationInput = {
      ...form,
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', pattern: '(a+)+$' } },
        allOf: [{ properties: { name: { pattern: '^(a|aa)+$' } } }],
      },
    };
    const content = { name: `${'a'.repeat(33)}!` };
    expect(checkMcpElicitationAnswer(evil, { action: 'accept', content })).toMatch(
      /^content does not fit the requested schema: .*must match pattern/,
    );
    expect(
      checkMcpElicitationAnswer(evil, { action: 'accept', content: { name: 'aaaa' } }),
    ).toBeUndefined();
  });
});
