import { describe, expect, it } from 'vitest';
import { ApiError } from './client.js';
import { problemInWords } from './problem-words.js';

describe('problems in words', () => {
  it('never shows the server’s internal detail to a person', () => {
    const parked = new ApiError(409, 'agent_parked', 'Agent is waiting for 1 tool calls and …');
    expect(problemInWords(parked)).toBe('The agent is waiting for an answer first.');
    expect(problemInWords(new ApiError(403, 'fixed_rule', 'rule wipe source policy'))).toBe(
      'That rule was set by the operator; it cannot be revoked here.',
    );
    expect(problemInWords(new ApiError(500, 'internal', 'stack trace…'))).toBe(
      'The server failed to handle that. Try again.',
    );
    expect(problemInWords(new ApiError(418, 'some_new_code', 'detail'))).toBe(
      'That did not work (some new code).',
    );
    expect(problemInWords(new TypeError('Failed to fetch'))).toBe(
      'The server could not be reached. Check the connection.',
    );
  });
});
