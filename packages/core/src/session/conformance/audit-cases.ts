import { expect, it } from 'vitest';
import { StaleSessionError } from '../../errors/index.js';
import { AUDIT_DECISIONS } from '../audit-record.js';
import type { AuditRecord } from '../audit-record.js';
import { InvalidAuditRecordError } from '../store-errors.js';
import type { SessionStoreHarness } from './fixtures.js';
import { freshSessionId, sampleAudit, sampleState } from './fixtures.js';
import { expectStale, rejectionOf } from './state-cases.js';

/** Registers the cases about audit records and their transaction. */
export function registerAuditCases(current: () => SessionStoreHarness): void {
  it('lists no audit records for an unknown session or a save without any', async () => {
    const { store } = current();
    const id = freshSessionId();
    expect(await store.listAudit(id)).toStrictEqual([]);
    await store.save(id, sampleState(id), 0);
    await store.save(id, sampleState(id, 1), 1, { audit: [] });
    expect(await store.listAudit(id)).toStrictEqual([]);
  });

  it('gives back every field of the records, in the order they were written', async () => {
    const { store } = current();
    const id = freshSessionId();
    const asked = sampleAudit(id, 'asked', { detail: { reason: 'writes a file' } });
    const edited = sampleAudit(id, 'input_edited', {
      approver: 'ada@example.com',
      detail: { before: { path: 'a' }, after: { path: 'b', note: 'ünïcode ✓' }, n: [1, 2.5] },
    });
    const confirmed = sampleAudit(id, 'confirmed', { at: '2025-01-02T03:04:07.890Z' });
    await store.save(id, sampleState(id, 0), 0, { audit: [asked, edited] });
    await store.save(id, sampleState(id, 1), 1, { audit: [confirmed] });
    expect(await store.listAudit(id)).toStrictEqual([asked, edited, confirmed]);
  });

  it('gives back approver ids exactly, whatever their script (astral, combining, RTL)', async () => {
    const { store } = current();
    const id = freshSessionId();
    const records = ['ann\u{1F600}', 'e\u0301ve', '\u05d0\u05d1', 'x\u{10FFFF}'].map(
      (approver, index) => sampleAudit(id, 'confirmed', { approver, toolCallId: `tc${index}` }),
    );
    await store.save(id, sampleState(id), 0, { audit: records });
    expect(await store.listAudit(id)).toStrictEqual(records);
  });

  it('accepts every documented decision', async () => {
    const { store } = current();
    const id = freshSessionId();
    const records = AUDIT_DECISIONS.map((decision, index) =>
      sampleAudit(id, decision, { toolCallId: `tc${index}` }),
    );
    await store.save(id, sampleState(id), 0, { audit: records });
    expect(await store.listAudit(id)).toStrictEqual(records);
  });

  it('keeps earlier records as they were when later saves append', async () => {
    const { store } = current();
    const id = freshSessionId();
    const written: AuditRecord[] = [];
    for (let step = 0; step < 5; step += 1) {
      const record = sampleAudit(id, 'executed', { toolCallId: `tc${step}` });
      written.push(record);
      await store.save(id, sampleState(id, step), step, { audit: [record] });
      expect(await store.listAudit(id)).toStrictEqual(written);
    }
  });

  it('writes no records with a stale save', async () => {
    const { store } = current();
    const id = freshSessionId();
    const first = sampleAudit(id, 'asked');
    await store.save(id, sampleState(id), 0, { audit: [first] });
    const lost = [sampleAudit(id, 'confirmed'), sampleAudit(id, 'executed')];
    expectStale(
      await rejectionOf(store.save(id, sampleState(id, 1), 0, { audit: lost })),
      id,
      0,
      1,
    );
    expectStale(
      await rejectionOf(store.save(id, sampleState(id, 1), 4, { audit: lost })),
      id,
      4,
      1,
    );
    const other = freshSessionId('missing');
    const orphan = [sampleAudit(other, 'asked')];
    await rejectionOf(store.save(other, sampleState(other), 2, { audit: orphan }));
    expect(await store.listAudit(id)).toStrictEqual([first]);
    expect(await store.listAudit(other)).toStrictEqual([]);
  });

  it('keeps only the winner’s records when 10 saves race', async () => {
    const { store } = current();
    const id = freshSessionId();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, step) =>
        store.save(id, sampleState(id, step), 0, {
          audit: [sampleAudit(id, 'confirmed', { toolCallId: `tc${step}` })],
        }),
      ),
    );
    const won = results.flatMap((result, step) => (result.status === 'fulfilled' ? [step] : []));
    expect(won).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(StaleSessionError);
    }
    expect(await store.listAudit(id)).toStrictEqual([
      sampleAudit(id, 'confirmed', { toolCallId: `tc${won[0] ?? -1}` }),
    ]);
  });

  it('keeps each session’s records apart', async () => {
    const { store } = current();
    const first = freshSessionId('first');
    const second = freshSessionId('second');
    await store.save(first, sampleState(first), 0, { audit: [sampleAudit(first, 'asked')] });
    await store.save(second, sampleState(second), 0, { audit: [sampleAudit(second, 'denied')] });
    expect(await store.listAudit(first)).toStrictEqual([sampleAudit(first, 'asked')]);
    expect(await store.listAudit(second)).toStrictEqual([sampleAudit(second, 'denied')]);
  });

  const badRecords: [string, (id: string) => AuditRecord][] = [
    ['names another session', () => sampleAudit(freshSessionId('elsewhere'), 'asked')],
    [
      'has a digest that is not SHA-256 hex',
      (id) => sampleAudit(id, 'asked', { inputDigest: 'xyz' }),
    ],
    ['has a time that is not ISO', (id) => sampleAudit(id, 'asked', { at: 'yesterday' })],
    ['has an empty tool name', (id) => sampleAudit(id, 'asked', { toolName: '' })],
    [
      'names an approver that is not well-formed Unicode',
      (id) => sampleAudit(id, 'confirmed', { approver: 'eve\ud800' }),
    ],
  ];
  for (const [what, makeBad] of badRecords) {
    it(`refuses the whole save when a record ${what}`, async () => {
      const { store, readRaw } = current();
      const id = freshSessionId();
      const first = sampleAudit(id, 'asked');
      await store.save(id, sampleState(id), 0, { audit: [first] });
      const before = await readRaw(id);
      const batch = [sampleAudit(id, 'confirmed'), makeBad(id), sampleAudit(id, 'executed')];
      const error = await rejectionOf(store.save(id, sampleState(id, 1), 1, { audit: batch }));
      expect(error).toBeInstanceOf(InvalidAuditRecordError);
      expect(await readRaw(id)).toStrictEqual(before);
      expect(await store.listAudit(id)).toStrictEqual([first]);
      const fresh = freshSessionId('fresh');
      await rejectionOf(store.save(fresh, sampleState(fresh), 0, { audit: [makeBad(fresh)] }));
      expect(await store.load(fresh)).toBeUndefined();
    });
  }

  it('rolls the state back when the storage engine refuses an audit insert', async (context) => {
    const harness = current();
    if (harness.failAuditWrites === undefined) {
      return context.skip('this backend has no storage engine to make fail');
    }
    const { store, readRaw } = harness;
    const id = freshSessionId();
    const fresh = freshSessionId('fresh');
    const first = sampleAudit(id, 'asked');
    await store.save(id, sampleState(id), 0, { audit: [first] });
    const before = await readRaw(id);
    await harness.failAuditWrites();
    const audit = [sampleAudit(id, 'confirmed')];
    expect(await rejectionOf(store.save(id, sampleState(id, 1), 1, { audit }))).toBeDefined();
    await rejectionOf(
      store.save(fresh, sampleState(fresh), 0, { audit: [sampleAudit(fresh, 'asked')] }),
    );
    expect(await readRaw(id)).toStrictEqual(before);
    expect(await store.load(id)).toStrictEqual({ state: sampleState(id), version: 1 });
    expect(await store.listAudit(id)).toStrictEqual([first]);
    expect(await store.load(fresh)).toBeUndefined();
    expect(await store.save(id, sampleState(id, 2), 1)).toBe(2);
  });
}
