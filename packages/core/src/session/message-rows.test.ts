import { historyState, sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../errors/index.js';
import { decodeSessionRows } from './decode-session-rows.js';
import { planSessionWrite } from './message-rows.js';
import { sha256Hex } from './runner/sha256.js';
import type { CachedSession } from './session-cache.js';
import { cachedMessage, cachedText } from './session-cache.js';
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

  it('writes 128-bit digests, and still reads rows that carry the whole SHA-256', () => {
    const state = historyState('s', 1);
    const { head, rows } = planSessionWrite('s', state, 0, {}, undefined);
    expect(rows.map((row) => row.digest)).toStrictEqual(
      rows.map((row) => sha256Hex(`s\n${row.position}\n${row.text}`).slice(0, 32)),
    );
    const read = (digest: (row: { position: number; text: string }) => string) => ({
      version: 1,
      head,
      messageCount: 2,
      leaseUntil: null,
      since: 0,
      rows: rows.map((row) => [row.position, row.text, digest(row)]),
    });
    const whole = read((row) => sha256Hex(`s\n${row.position}\n${row.text}`));
    expect(decodeSessionRows('s', whole, undefined).session.state).toStrictEqual(state);
    for (const bad of [
      (row: { position: number; text: string }) =>
        sha256Hex(`s\n${row.position}\n${row.text}`).slice(32),
      (row: { position: number; text: string }) =>
        sha256Hex(`s\n${row.position}\n${row.text}`).slice(0, 31),
      () => '',
    ]) {
      expect(() => decodeSessionRows('s', read(bad), undefined)).toThrow(/digest/);
    }
  });

  it('appends to the lists of the entry it starts from only while nobody else has', () => {
    const state = historyState('s', 2);
    const first = planSessionWrite('s', state, 0, {}, undefined).entry;
    const view = (entry: CachedSession) => ({
      texts: Array.from({ length: entry.count }, (_, position) => cachedText(entry, position)),
      messages: Array.from({ length: entry.count - 1 }, (_, position) =>
        cachedMessage(entry, position),
      ),
    });
    const before = view(first);
    const next = (text: string) => ({
      ...state,
      context: [
        ...state.context,
        { id: text, name: 'user', role: 'user' as const, content: text, createdAt: 'x' },
      ],
    });
    // Two saves planned from the same entry (one of them will lose the race).
    const one = planSessionWrite('s', next('one'), 1, {}, first).entry;
    const two = planSessionWrite('s', next('two'), 1, {}, first).entry;
    expect(one.texts).toBe(first.texts);
    expect(two.texts).not.toBe(first.texts);
    expect(view(first)).toStrictEqual(before);
    expect(view(one).texts.slice(0, 4)).toStrictEqual(before.texts);
    expect(view(two).texts.slice(0, 4)).toStrictEqual(before.texts);
    expect(cachedText(one, 4)).toContain('"one"');
    expect(cachedText(two, 4)).toContain('"two"');
    expect(cachedText(one, 5)).toBeUndefined();
    // A later save from `one` appends again; `two` is untouched by it.
    const three = planSessionWrite('s', next('one'), 2, {}, one).entry;
    expect(three.texts).toBe(one.texts);
    expect(cachedText(two, 4)).toContain('"two"');
    expect(three.bytes).toBe(one.bytes);
  });

  it('keeps the last message of a save that drops the messages after it', () => {
    const state = historyState('s', 2);
    const first = planSessionWrite('s', state, 0, {}, undefined).entry;
    const shorter = { ...state, context: state.context.slice(0, 3) };
    const plan = planSessionWrite('s', shorter, 1, {}, first);
    expect(plan.trim).toBe(true);
    expect(plan.entry.count).toBe(3);
    expect(
      Array.from({ length: 3 }, (_, position) => cachedText(plan.entry, position)),
    ).toStrictEqual(shorter.context.map((message) => JSON.stringify(message)));
    const head = plan.head;
    const loaded = decodeSessionRows(
      's',
      { version: 2, head, messageCount: 3, leaseUntil: null, since: 2, rows: [] },
      plan.entry,
    );
    expect(loaded.session.state).toStrictEqual(shorter);
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
