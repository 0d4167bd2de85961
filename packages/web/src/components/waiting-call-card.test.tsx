// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplyInput } from '../api/client.js';
import { colourQuestion, waitingCall } from '../../test/waiting-calls.js';
import { WaitingCallCard } from './waiting-call-card.js';

afterEach(cleanup);

describe('WaitingCallCard', () => {
  it('offers Skip on an AskUser call: a cancelled answer the model reads', async () => {
    const sent: ReplyInput[] = [];
    const api = {
      postReply: async (_session: string, input: ReplyInput) => {
        sent.push(input);
      },
      audit: () => Promise.reject(new Error('the audit trail is not read here')),
    };
    const call = waitingCall('q1', 'AskUser', 'external', colourQuestion);
    let settled = 0;
    render(
      <WaitingCallCard
        api={api}
        sessionId="s1"
        replyId="r1"
        call={call}
        deadline={null}
        onSettled={() => (settled += 1)}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Skip' }));
    await waitFor(() => expect(settled).toBe(1));
    expect(sent).toMatchObject([
      {
        type: 'EXTERNAL_EXECUTION_RESULT',
        replyId: 'r1',
        executionResults: [
          {
            type: 'tool_result',
            id: 'q1',
            name: 'AskUser',
            output: [
              { type: 'text', text: 'The user skipped these questions without answering them.' },
            ],
            state: 'interrupted',
          },
        ],
      },
    ]);
    expect(screen.getByRole('status').textContent).toBe('Answered by you');
  });
});
