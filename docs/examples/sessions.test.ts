import { describe, expect, it } from 'vitest';
import { sessionsExample } from './sessions.js';

describe('sessions guide example runs as documented', () => {
  it('parks, resumes once, keeps the trail, and expires an unanswered question', async () => {
    expect(await sessionsExample()).toEqual({
      asked: ['write_note'],
      answer: 'The note is written.',
      outsider: 'not yours to answer',
      secondAnswer: 'already answered',
      trail: [
        { decision: 'asked', approver: null },
        { decision: 'confirmed', approver: 'ada@example.com' },
        { decision: 'executed', approver: null },
      ],
      expired: ['s2'],
      lateAnswer: 'too late',
    });
  });
});
