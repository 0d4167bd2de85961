import { describe, expect, it } from 'vitest';
import { formatChangePayload, parseChangePayload } from './session-subscription.js';

describe('change payloads', () => {
  it('round-trip, with colons in the session id', () => {
    for (const change of [
      { sessionId: 's1', version: 1 },
      { sessionId: 'tenant:a:session:b', version: 42 },
    ]) {
      expect(formatChangePayload(change)).toBe(`${change.sessionId}:${change.version}`);
      expect(parseChangePayload(formatChangePayload(change))).toStrictEqual(change);
    }
  });

  it.each(['', 's1', ':1', 's1:', 's1:0', 's1:01', 's1:x', 's1:1.5', 's1:99999999999999999999'])(
    'ignores a payload it did not write: %j',
    (payload) => {
      expect(parseChangePayload(payload)).toBeUndefined();
    },
  );
});
