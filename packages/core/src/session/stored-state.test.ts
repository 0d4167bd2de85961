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
});
