import { describe, expect, it } from 'vitest';
import * as events from './index.js';
import { agentEventTypes, replyStartEvent, toolResultEndEvent } from './index.js';

/** `TOOL_RESULT_DATA_DELTA` → `toolResultDataDeltaEvent` (API.md: "a factory of the same name in camelCase"). */
function factoryName(type: string): string {
  const camel = type
    .toLowerCase()
    .replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
  return `${camel}Event`;
}

describe('output event factories', () => {
  it('exist for every output event type, named after it', () => {
    const exported = new Set(Object.keys(events));
    const missing = agentEventTypes.map(factoryName).filter((name) => !exported.has(name));
    expect(missing).toEqual([]);
  });

  it('fill id, createdAt and an empty metadata', () => {
    const event = replyStartEvent({
      replyId: 'r1',
      sessionId: 's1',
      name: 'assistant',
      role: 'assistant',
    });
    expect(event).toEqual({
      type: 'REPLY_START',
      replyId: 'r1',
      sessionId: 's1',
      name: 'assistant',
      role: 'assistant',
      id: expect.any(String),
      createdAt: expect.any(String),
      metadata: {},
    });
    expect(Number.isNaN(Date.parse(event.createdAt))).toBe(false);
    expect(
      replyStartEvent({ replyId: 'r1', sessionId: 's1', name: 'a', role: 'assistant' }).id,
    ).not.toBe(event.id);
  });

  it('keep the metadata they are given', () => {
    const event = toolResultEndEvent({
      replyId: 'r1',
      toolCallId: 'tc1',
      state: 'success',
      metadata: { exitCode: 0 },
    });
    expect(event.metadata).toEqual({ exitCode: 0 });
  });

  it('build events the codec accepts', () => {
    const event = toolResultEndEvent({ replyId: 'r1', toolCallId: 'tc1', state: 'denied' });
    expect(events.parseAgentEvent(events.encodeEvent(event))).toEqual(event);
  });
});
