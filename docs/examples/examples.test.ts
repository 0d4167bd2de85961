import { describe, expect, it } from 'vitest';
import { askUserExample } from './ask-user.js';
import { externalExecutionExample } from './external-execution.js';
import { userConfirmationExample } from './user-confirmation.js';

describe('guide examples run as documented', () => {
  it('user confirmation: one prompt, the accepted rule allows the second write', async () => {
    const result = await userConfirmationExample();
    expect(result).toEqual({
      written: ['notes/a.txt', 'notes/b.txt'],
      answer: 'Both notes are written.',
      asked: 1,
    });
  });

  it('external execution: the result comes back through a fresh agent', async () => {
    const result = await externalExecutionExample();
    expect(result.requested).toEqual(['deploy {"env":"staging"}']);
    expect(result.answer).toBe('Staging is live at https://staging.example.test.');
  });

  it('AskUser: the model reads the header and the choice', async () => {
    const result = await askUserExample();
    expect(result.toModel).toBe('Auth method: OAuth 2.0 (Recommended)');
    expect(result.final).toBe('Going with OAuth 2.0.');
  });
});
