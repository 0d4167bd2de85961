// The Idempotency-Key claims of every SessionLog: part of the conformance
// suite (session-log-conformance.ts), which registers these tests.
import { expect, it } from 'vitest';
import { claimReply, recordStart } from '../src/idempotency/idempotency.js';
import type { SessionLog } from '../src/log/session-log.js';

/** Registers the claim tests; `fresh` gives a fresh, empty log. */
export function describeIdempotencyConformance(fresh: () => Promise<SessionLog>): void {
  it('claims an idempotency key once per principal, settles and releases it', async () => {
    const log = await fresh();
    const request = claimOf('k1', 'h1', 'c1', NOW + 1000);
    expect(await log.claimIdempotency(request, NOW)).toBeUndefined();
    expect(await log.claimIdempotency({ ...request, requestHash: 'h2' }, NOW)).toEqual(request);
    expect(await log.claimIdempotency({ ...request, principal: 'bob' }, NOW)).toBeUndefined();
    const settled = { ...request, after: 3, lastSeq: 9, response: '{"ok":true}' };
    await log.settleIdempotency(settled);
    expect(await log.claimIdempotency({ ...request, claimId: 'c2' }, NOW)).toEqual(settled);
    // Another claim id neither releases nor settles it.
    await log.releaseIdempotency({ ...request, claimId: 'c2' });
    expect(await log.claimIdempotency({ ...request, claimId: 'c2' }, NOW)).toEqual(settled);
    await log.releaseIdempotency(request);
    const again = claimOf('k1', 'h3', 'c3', NOW + 1000);
    expect(await log.claimIdempotency(again, NOW)).toBeUndefined();
  });

  it('gives one of many concurrent claims of a key the claim', async () => {
    const log = await fresh();
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        log.claimIdempotency(claimOf('race', `h${index}`, `c${index}`, NOW + 1000), NOW),
      ),
    );
    expect(claims.filter((claim) => claim === undefined)).toHaveLength(1);
    const winner = claims.findIndex((claim) => claim === undefined);
    for (const claim of claims) {
      if (claim !== undefined) expect(claim.requestHash).toBe(`h${winner}`);
    }
  });

  it('takes over a claim whose hold is over, and only the same request', async () => {
    const log = await fresh();
    const dead = claimOf('k', 'h', 'dead', NOW + 1000);
    expect(await log.claimIdempotency(dead, NOW)).toBeUndefined();
    const later = NOW + 5000;
    // Another request under the key never takes it: 422 as before.
    const other = claimOf('k', 'other', 'x', later + 1000);
    expect(await log.claimIdempotency(other, later)).toEqual(dead);
    const retry = claimOf('k', 'h', 'retry', later + 1000);
    expect(await log.claimIdempotency(retry, later)).toBeUndefined();
    // The dead holder's claim id no longer renews, settles or releases it.
    expect(await log.renewIdempotency({ ...dead, heldUntil: later + 9000 })).toBe(false);
    await log.settleIdempotency({ ...dead, after: 0, lastSeq: 1, response: '"dead"' });
    await log.releaseIdempotency(dead);
    expect(await log.claimIdempotency(claimOf('k', 'h', 'y', later + 1000), later)).toEqual(retry);
    expect(await log.renewIdempotency({ ...retry, heldUntil: later + 2000 })).toBe(true);
    const settled = { ...retry, heldUntil: later + 2000, after: 2, lastSeq: 4, response: '"ok"' };
    await log.settleIdempotency(settled);
    // A settled claim is given again, never taken over, however old.
    expect(await log.claimIdempotency(claimOf('k', 'h', 'z', NOW * 2), NOW * 2)).toEqual(settled);
    expect(await log.renewIdempotency({ ...retry, heldUntil: later + 3000 })).toBe(false);
  });

  it('does not take over a claim that is still held, renewed or not yet over', async () => {
    const log = await fresh();
    const live = claimOf('k', 'h', 'live', NOW + 1000);
    expect(await log.claimIdempotency(live, NOW)).toBeUndefined();
    expect(await log.claimIdempotency(claimOf('k', 'h', 'a', NOW + 2000), NOW + 999)).toEqual(live);
    expect(await log.renewIdempotency({ ...live, heldUntil: NOW + 4000 })).toBe(true);
    const renewed = { ...live, heldUntil: NOW + 4000 };
    expect(await log.claimIdempotency(claimOf('k', 'h', 'b', NOW + 5000), NOW + 3000)).toEqual(
      renewed,
    );
  });

  it('gives an abandoned claim to one of many concurrent retries', async () => {
    const log = await fresh();
    expect(await log.claimIdempotency(claimOf('k', 'h', 'dead', NOW), NOW)).toBeUndefined();
    const later = NOW + 10_000;
    const takers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        log.claimIdempotency(claimOf('k', 'h', `t${index}`, later + 1000), later),
      ),
    );
    expect(takers.filter((taken) => taken === undefined)).toHaveLength(1);
    const winner = takers.findIndex((taken) => taken === undefined);
    for (const taken of takers) {
      if (taken !== undefined) expect(taken.claimId).toBe(`t${winner}`);
    }
  });

  it('records a started reply on the claim, and never gives a started claim to run again', async () => {
    const log = await fresh();
    const first = claimOf('k', 'h', 'first', NOW + 1000);
    expect(await log.claimIdempotency(first, NOW)).toBeUndefined();
    // Another claim id records nothing.
    await log.startIdempotency({ ...first, claimId: 'other', after: 99 });
    await log.startIdempotency({ ...first, after: 7 });
    const started = { ...first, after: 7 };
    // Still held: in progress, whatever the holder recorded.
    expect(await log.claimIdempotency(claimOf('k', 'h', 'early', NOW + 2000), NOW + 500)).toEqual(
      started,
    );
    expect(await log.renewIdempotency({ ...first, heldUntil: NOW + 2000 })).toBe(true);
    const later = NOW + 5000;
    expect(await log.claimIdempotency(claimOf('k', 'other', 'x', later + 1000), later)).toEqual({
      ...started,
      heldUntil: NOW + 2000,
    });
    // Its process died: the retry takes the claim over but gets it back, now its own.
    const retry = claimOf('k', 'h', 'retry', later + 1000);
    const taken = { ...started, claimId: 'retry', heldUntil: later + 1000 };
    expect(await log.claimIdempotency(retry, later)).toEqual(taken);
    // The dead holder neither records nor settles any more.
    await log.startIdempotency({ ...first, after: 1 });
    await log.settleIdempotency({ ...started, lastSeq: 9, response: '"dead"' });
    expect(await log.claimIdempotency(claimOf('k', 'h', 'y', later + 1000), later)).toEqual(taken);
    const interrupted = { ...taken, lastSeq: 12, interrupted: true };
    await log.settleIdempotency(interrupted);
    expect(await log.claimIdempotency(claimOf('k', 'h', 'z', NOW * 2), NOW * 2)).toEqual(
      interrupted,
    );
    // A settled claim records no start either.
    await log.startIdempotency({ ...taken, after: 1 });
    expect(await log.claimIdempotency(claimOf('k', 'h', 'z', NOW * 2), NOW * 2)).toEqual(
      interrupted,
    );
  });

  it('gives a started, abandoned claim to one of many concurrent retries, never to run', async () => {
    const log = await fresh();
    const dead = claimOf('k', 'h', 'dead', NOW);
    expect(await log.claimIdempotency(dead, NOW)).toBeUndefined();
    await log.startIdempotency({ ...dead, after: 3 });
    const later = NOW + 10_000;
    const takers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        log.claimIdempotency(claimOf('k', 'h', `t${index}`, later + 1000), later),
      ),
    );
    expect(takers.filter((taken) => taken === undefined)).toHaveLength(0);
    const holders = new Set(takers.map((taken) => taken?.claimId));
    expect(holders.size).toBe(1);
    expect([...holders][0]).toMatch(/^t\d+$/);
    for (const taken of takers) expect(taken).toMatchObject({ after: 3, lastSeq: null });
  });

  it('runs a taken-over reply again iff no event above its recorded start is stored', async () => {
    const log = await fresh();
    await log.append('s1', [{ seq: 1, type: 'REPLY_START', data: '{}' }], 5);
    const first = claimOf('k', 'h', 'first', NOW);
    const second = claimOf('j', 'h', 'second', NOW);
    expect(await log.claimIdempotency(first, NOW)).toBeUndefined();
    expect(await log.claimIdempotency(second, NOW)).toBeUndefined();
    // Both recorded the number their reply would start after: the last one, reserved included.
    expect(await recordStart(log, first, 's1')).toBe(5);
    expect(await recordStart(log, second, 's1')).toBe(5);
    const hold = { clock: () => new Date(NOW + 10_000), claimLeaseMs: 1000, logger: silent };
    // Nothing above 5 stored: the first attempt's reply never started, the retry runs it.
    const retry = claimOf('k', 'h', 'retry', NOW + 11_000);
    expect(await claimReply(log, 's1', retry, hold)).toEqual({ kind: 'run' });
    // Now held by the retry: a later one finds it running.
    expect(await claimReply(log, 's1', claimOf('k', 'h', 'late', 0), hold)).toEqual({
      kind: 'earlier',
      earlier: { ...retry, after: 5 },
    });
    // The second attempt's reply stored its first event: its retry settles it, never runs it.
    await log.append('s1', [{ seq: 6, type: 'REPLY_START', data: '{}' }], 6);
    const taker = claimOf('j', 'h', 'taker', NOW + 11_000);
    expect(await claimReply(log, 's1', taker, hold)).toEqual({
      kind: 'interrupted',
      claim: { ...taker, after: 5 },
    });
  });
}

/** A logger that drops everything. */
const silent = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** A moment to measure claims' holds from (epoch ms). */
const NOW = Date.parse('2026-01-01T00:00:00.000Z');

/** An unsettled claim of `key` by alice. */
function claimOf(key: string, requestHash: string, claimId: string, heldUntil: number) {
  return {
    principal: 'alice',
    key,
    requestHash,
    claimId,
    heldUntil,
    after: null,
    lastSeq: null,
    response: null,
    interrupted: false,
    status: 200,
  };
}
