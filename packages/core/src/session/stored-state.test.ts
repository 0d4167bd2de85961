import { sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../errors/index.js';
import { AGENT_STATE_VERSION, serializeAgentState } from '../state/index.js';
import { decodeStoredState } from './stored-state.js';

describe('stored state text', () => {
  it('round-trips a state through its JSON text', () => {
    const state = sampleState('s1');
    expect(decodeStoredState('s1', serializeAgentState(state))).toStrictEqual(state);
  });

  it.each([
    ['not text', 42],
    ['not JSON', '{'],
    ['not an object', '"text"'],
    [
      'from a future schema',
      JSON.stringify({ ...sampleState('s1'), schemaVersion: AGENT_STATE_VERSION + 1 }),
    ],
  ])('refuses a stored state that is %s, naming the session', (_what, stored) => {
    expect(() => decodeStoredState('s1', stored)).toThrow(InvalidStateError);
    expect(() => decodeStoredState('s1', stored)).toThrow(
      expect.objectContaining({ sessionId: 's1' }),
    );
  });

  it('refuses a "__proto__" key a copy would drop, naming where it is', () => {
    const state = sampleState('s1');
    const text = serializeAgentState(state).replace('{', '{"metadata":{"__proto__":1},');
    expect(() => decodeStoredState('s1', text)).toThrow(
      expect.objectContaining({
        sessionId: 's1',
        message: expect.stringContaining('metadata.__proto__'),
      }),
    );
    // As a value, the word is just text.
    const quoted = { ...state, metadata: { note: '__proto__' } };
    expect(decodeStoredState('s1', serializeAgentState(quoted))).toStrictEqual(quoted);
  });
});
