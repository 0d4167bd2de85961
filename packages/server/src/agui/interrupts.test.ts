import { InterruptSchema } from '@ag-ui/core/schemas';
import { AGENT_STATE_VERSION, AskUser, Toolkit, createPermissionContext } from '@parley/core';
import type { AgentState, ToolCallBlock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { decodeInterruptId, interruptId, openCallsOf } from './interrupts.js';

const call = (
  id: string,
  name: string,
  input: unknown,
  state: ToolCallBlock['state'],
): ToolCallBlock => ({
  type: 'tool_call',
  id,
  name,
  input: JSON.stringify(input),
  state,
  suggestedRules: [],
});

function parked(calls: ToolCallBlock[]): AgentState {
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId: 's',
    context: [{ id: 'r1', name: 'assistant', role: 'assistant', content: calls }],
    permission: createPermissionContext({
      mode: 'default',
      workingDirectories: [],
      allowRules: [],
      denyRules: [],
      askRules: [],
    }),
    reply: {
      replyId: 'r1',
      status: 'parked',
      iterations: 1,
      turnStart: 0,
      executing: [],
      deadline: '2030-01-01T00:00:00.000Z',
    },
  };
}

const question = {
  questions: [
    {
      header: 'Color',
      question: 'Which color?',
      options: [
        { label: 'Blue', description: 'calm' },
        { label: 'Green', description: 'fresh' },
      ],
    },
  ],
};

describe('interrupts', () => {
  it('encode the kind and the call id, and decode without any memory', () => {
    expect(decodeInterruptId(interruptId('confirm', 'call:with:colons'))).toEqual({
      kind: 'confirm',
      toolCallId: 'call:with:colons',
    });
    expect(decodeInterruptId('ask:a1')).toEqual({ kind: 'ask', toolCallId: 'a1' });
    expect(decodeInterruptId('approve:a1')).toBeUndefined();
    expect(decodeInterruptId('confirm:')).toBeUndefined();
  });

  it("list every waiting call from the state, AskUser narrowed to its options, the client's calls as pending", () => {
    const state = parked([
      call('c1', 'write', { x: 1 }, 'asking'),
      call('a1', 'AskUser', question, 'submitted'),
      call('e1', 'deploy', {}, 'submitted'),
      call('g1', 'greet', {}, 'submitted'),
      call('f1', 'write', {}, 'finished'),
    ]);
    const open = openCallsOf(state, new Toolkit([AskUser]), new Set(['greet']));
    expect(open.pendingToolCallIds).toEqual(['g1']);
    expect(open.interrupts.map((interrupt) => [interrupt.id, interrupt.reason])).toEqual([
      ['confirm:c1', 'tool_call'],
      ['ask:a1', 'input_required'],
      ['external:e1', 'parley:external_execution'],
    ]);
    for (const interrupt of open.interrupts) {
      expect(InterruptSchema.safeParse(interrupt).success).toBe(true);
      expect(interrupt.expiresAt).toBe('2030-01-01T00:00:00.000Z');
    }
    expect(JSON.stringify(open.interrupts[1]?.responseSchema)).toContain(
      '{"enum":["Blue","Green"]}',
    );
    expect(open.interrupts[0]?.metadata).toEqual({
      parley: {
        kind: 'confirm',
        replyId: 'r1',
        toolName: 'write',
        input: { x: 1 },
        suggestedRules: [],
      },
    });
  });

  it('are none when nothing is parked', () => {
    const state = { ...parked([]), reply: null };
    expect(openCallsOf(state, new Toolkit(), new Set())).toEqual({
      interrupts: [],
      pendingToolCallIds: [],
    });
  });
});
