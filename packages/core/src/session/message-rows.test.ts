import { historyState, sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../errors/index.js';
import { decodeSessionRows } from './decode-session-rows.js';
import { planSessionWrite } from './message-rows.js';
import { messageDigest } from './stored-message.js';

describe('message rows', () => {
  it('serializes only the last message of what it knows and the messages after it', () => {
    const state = historyState('s', 3);
    const first = planSessionWrite('s', state, 0, {}, undefined);
    expect(first.rows.map((row) => row.position)).toStrictEqual([0, 1, 2, 3, 4, 5]);
    const spy = state.context.map((message) => message);
    const seen: number[] = [];
    for (const [position, message] of spy.entries()) {
      Object.defineProperty(message, 'toJSON', {
        value: () => {
          seen.push(position);
          const { ...plain } = message;
          return plain;
        },
        enumerable: false,
      });
    }
    state.context.push({ id: 'n', name: 'user', role: 'user', content: 'next', createdAt: 'x' });
    const second = planSessionWrite('s', state, 1, {}, first.entry);
    expect(seen).toStrictEqual([5]);
    expect(second.rows.map((row) => row.position)).toStrictEqual([6]);
    expect(second.trim).toBe(false);
  });

  it('writes every row, and trims, when it knows nothing of the stored version', () => {
    const state = historyState('s', 1);
    const stale = planSessionWrite('s', state, 0, {}, undefined).entry;
    const plan = planSessionWrite('s', state, 4, {}, stale);
    expect(plan.rows).toHaveLength(2);
    expect(plan.trim).toBe(true);
  });

  it('refuses a row that was moved to another place or session', () => {
    const state = historyState('s', 1);
    const { head, rows } = planSessionWrite('s', state, 0, {}, undefined);
    const read = (moved: { position: number; text: string; digest: string }[]) => ({
      version: 1,
      head,
      messageCount: 2,
      leaseUntil: null,
      since: 0,
      rows: moved.map(({ position, text, digest }) => [position, text, digest]),
    });
    expect(decodeSessionRows('s', read(rows), undefined).session.state).toStrictEqual(state);
    const [zero, one] = rows;
    if (zero === undefined || one === undefined) throw new Error('no rows');
    const swapped = [
      { ...zero, position: 1 },
      { ...one, position: 0 },
    ];
    expect(() => decodeSessionRows('s', read(swapped), undefined)).toThrow(InvalidStateError);
    const other = planSessionWrite('t', historyState('t', 1), 0, {}, undefined).rows;
    expect(() => decodeSessionRows('s', read(other), undefined)).toThrow(/digest/);
    expect(messageDigest('s', 0, 'x')).not.toBe(messageDigest('t', 0, 'x'));
  });

  it('refuses a duplicate tool call id in a message it is asked to write', () => {
    const state = sampleState('s');
    const reply = state.context[1];
    if (reply === undefined || typeof reply.content === 'string') throw new Error('no reply');
    const call = reply.content.find((block) => block.type === 'tool_call');
    if (call === undefined) throw new Error('no call');
    reply.content.push({ ...call });
    expect(() => planSessionWrite('s', state, 0, {}, undefined)).toThrow(/duplicate tool call id/);
  });
});
