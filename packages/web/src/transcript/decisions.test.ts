import { describe, expect, it } from 'vitest';
import { decisionLine, decisionsOf } from './decisions.js';

const record = (
  toolCallId: string,
  decision: string,
  approver: string | null,
  detail?: unknown,
) => ({
  sessionId: 's',
  replyId: 'r',
  toolCallId,
  toolName: 'write_note',
  decision,
  approver,
  at: '2026-12-08T00:00:00.000Z',
  ...(detail === undefined ? {} : { detail }),
});

describe('the decisions of the audit trail', () => {
  it('keeps, per call, a denial with its reason and approver, an edit with both inputs, an allow', () => {
    const decisions = decisionsOf([
      record('a', 'asked', null),
      record('a', 'denied', 'ada', { reason: 'keep my notes' }),
      record('b', 'asked', null),
      record('b', 'input_edited', 'ada', {
        before: { name: 'write_note', input: '{"path":"a.md"}' },
        after: { name: 'write_note', input: '{"path":"b.md"}' },
      }),
      record('b', 'confirmed', 'ada'),
      record('c', 'confirmed', 'bob'),
      record('d', 'denied_by_mode', null, { reason: 'plan mode' }),
      record('e', 'interrupted', null),
      {
        ...record('f', 'executed', 'ada', { external: true, state: 'success' }),
        toolName: 'AskUser',
      },
      {
        ...record('g', 'executed', 'ada', { external: true, state: 'interrupted' }),
        toolName: 'AskUser',
      },
      record('h', 'executed', 'ada', { external: true, state: 'error' }),
      record('i', 'executed', null),
    ]);
    expect(decisions.get('a')).toEqual({ verdict: 'denied', by: 'ada', reason: 'keep my notes' });
    expect(decisions.get('b')).toEqual({
      verdict: 'edited',
      by: 'ada',
      proposed: '{"path":"a.md"}',
      ran: '{"path":"b.md"}',
    });
    expect(decisions.get('c')).toEqual({ verdict: 'allowed', by: 'bob' });
    expect([...decisions.values()].map(decisionLine)).toEqual([
      'Denied by ada: keep my notes',
      'Edited and allowed by ada',
      'Allowed by bob',
      'Denied by a rule or the mode: plan mode',
      'Interrupted',
      'Answered by ada',
      'Skipped by ada',
      'Error reported by ada',
    ]);
  });
});
