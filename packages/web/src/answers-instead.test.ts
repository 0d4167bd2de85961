import { describe, expect, it } from 'vitest';
import { insteadOfWaiting, sendingNote } from './answers.js';
import { colourQuestion, waitingCall as call } from '../test/waiting-calls.js';

describe('a message typed while calls wait', () => {
  const waiting = [
    { replyId: 'r1', call: call('c1', 'write_note', 'confirm', '{"text":"a"}') },
    { replyId: 'r1', call: call('c2', 'write_note', 'confirm', '{"text":"b"}') },
    { replyId: 'r1', call: call('q1', 'AskUser', 'external', colourQuestion) },
    { replyId: 'r1', call: call('x1', 'lookup', 'external', '{"q":"p"}') },
  ];

  it('denies the confirmations with it as the reason, then skips the questions and closes external calls', () => {
    const [confirm, external, ...rest] = insteadOfWaiting(waiting, 'Use the other notebook');
    expect(rest).toEqual([]);
    expect(confirm).toMatchObject({
      type: 'USER_CONFIRM_RESULT',
      replyId: 'r1',
      confirmResults: [
        { confirmed: false, toolCall: { id: 'c1' }, reason: 'Use the other notebook' },
        { confirmed: false, toolCall: { id: 'c2' }, reason: 'Use the other notebook' },
      ],
    });
    expect(external).toMatchObject({
      type: 'EXTERNAL_EXECUTION_RESULT',
      replyId: 'r1',
      executionResults: [
        {
          id: 'q1',
          name: 'AskUser',
          state: 'interrupted',
          output: [
            {
              type: 'text',
              text: 'The user skipped these questions without answering them, and said instead: Use the other notebook',
            },
          ],
        },
        {
          id: 'x1',
          name: 'lookup',
          state: 'error',
          output:
            "The user did not give this call's result, and said instead: Use the other notebook",
        },
      ],
    });
  });

  it('is one confirmation event when only confirmations wait', () => {
    const events = insteadOfWaiting(waiting.slice(0, 1), 'no');
    expect(events.map((event) => event.type)).toEqual(['USER_CONFIRM_RESULT']);
  });

  it('says what sending will do before it is sent', () => {
    expect(sendingNote(waiting.slice(0, 2), 'stop')).toBe(
      'Sending will deny the 2 waiting calls and tell the agent: “stop”',
    );
    expect(sendingNote(waiting.slice(0, 1), 'stop')).toBe(
      'Sending will deny the 1 waiting call and tell the agent: “stop”',
    );
    expect(sendingNote(waiting, 'stop')).toBe(
      'Sending will deny the 2 waiting calls, skip the 1 question and close the 1 call waiting for a result and tell the agent: “stop”',
    );
  });
});
