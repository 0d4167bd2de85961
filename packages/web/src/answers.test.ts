import { describe, expect, it } from 'vitest';
import type { ToolCallBlock } from '@parley/core';
import { confirmEvent, confirmResultOf } from './answers.js';

const asked: ToolCallBlock = {
  type: 'tool_call',
  id: 'tc1',
  name: 'write_note',
  input: '{"text":"hi"}',
  state: 'asking',
  suggestedRules: [
    { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'suggested' },
  ],
};

describe('the answers the web UI sends', () => {
  it('an edit changes only the input: the tool name and id stay the asked call’s', () => {
    const edited = '{"text":"bye","name":"Bash"}';
    const result = confirmResultOf(asked, { kind: 'edit', input: edited });
    expect(result).toStrictEqual({ confirmed: true, toolCall: { ...asked, input: edited } });
    expect(result.toolCall.name).toBe('write_note');
    expect(result.toolCall.id).toBe('tc1');
  });

  it('keeps only the rules suggested with the call, and only with "always allow"', () => {
    expect(confirmResultOf(asked, { kind: 'always' }).rules).toStrictEqual(asked.suggestedRules);
    expect(confirmResultOf(asked, { kind: 'allow' }).rules).toBeUndefined();
    expect(confirmResultOf(asked, { kind: 'edit', input: '{}' }).rules).toBeUndefined();
    const event = confirmEvent('r1', [
      { toolCall: asked, decision: { kind: 'deny', reason: ' no ' } },
    ]);
    expect(event.confirmResults).toStrictEqual([
      { confirmed: false, toolCall: asked, reason: 'no' },
    ]);
  });
});
