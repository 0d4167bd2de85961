// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Transcript } from '../transcript/transcript.js';
import { transcriptOfMessages, withUserMessage } from '../transcript/transcript.js';
import { TranscriptView } from './transcript-view.js';

afterEach(cleanup);

const call = (id: string, name: string, input: string) => ({
  kind: 'call' as const,
  id,
  call: { id, name, input },
});

const transcript: Transcript = {
  lastSeq: 0,
  entries: [
    { kind: 'user', id: 'u1', name: 'user', text: 'hello' },
    {
      kind: 'reply',
      id: 'r1',
      source: 'events',
      status: 'parked',
      blocks: [
        call('edited', 'write_note', '{"path":"a.md","content":"x"}'),
        call('denied', 'delete_notes', '{}'),
        call('external', 'deploy', '{}'),
        {
          kind: 'call',
          id: 'running',
          call: {
            id: 'running',
            name: 'AskUser',
            input: '{}',
            waiting: 'external',
            result: { state: 'running', text: '' },
          },
        },
      ],
    },
  ],
};

describe('TranscriptView', () => {
  it('labels every message of the person "you", sent here or read back after a reload', () => {
    const reloaded = transcriptOfMessages([
      { id: 'm1', role: 'user', name: 'user', content: 'hello' },
    ] as Parameters<typeof transcriptOfMessages>[0]);
    const sent = withUserMessage(reloaded, { kind: 'user', id: 'l', name: 'you', text: 'again' });
    render(<TranscriptView transcript={sent} />);
    const speakers = screen.getAllByText('you');
    expect(speakers).toHaveLength(2);
    expect(screen.queryByText('user')).toBeNull();
  });

  it('shows the input that ran with the proposal as a diff, the denial with its reason, and "waiting for you"', () => {
    render(
      <TranscriptView
        transcript={transcript}
        context={{
          waiting: new Set(['external']),
          decisions: new Map([
            [
              'edited',
              {
                verdict: 'edited',
                by: 'ada',
                proposed: '{"path":"a.md","content":"x"}',
                ran: '{"path":"b.md","content":"x"}',
              },
            ],
            ['denied', { verdict: 'denied', by: 'ada', reason: 'keep my notes' }],
          ]),
        }}
      />,
    );
    const diff = screen.getByRole('figure', { name: "Changes to the model's proposal, as edited" });
    expect(diff.textContent).toContain('-   "path": "a.md",');
    expect(diff.textContent).toContain('+   "path": "b.md",');
    expect(screen.getByText('Edited and allowed by ada')).toBeTruthy();
    const denial = screen.getByText('Denied by ada: keep my notes');
    expect(denial.className).toContain('decision-denied');
    // An external call and an AskUser call wait for a person: never "running…".
    expect(screen.getAllByText('waiting for you')).toHaveLength(2);
    expect(screen.queryByText('running…')).toBeNull();
  });
});
