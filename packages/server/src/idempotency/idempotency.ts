import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '@parley/core';
import { IdempotencyKeyError } from '../errors.js';
import type { IdempotentRequest, SessionLog } from '../log/session-log.js';

/**
 * How long a claim is held without a renewal (`claimLeaseMs`), the clock
 * it is measured on, and who hears of renewals that failed. A claim whose
 * holder stopped renewing it (the process died) counts as abandoned once
 * its hold is over.
 */
export type ClaimHold = { clock: () => Date; claimLeaseMs: number; logger: Logger };

/**
 * The claim a POST makes on its `Idempotency-Key`, or undefined without
 * one. The digest covers `scope` (what the route acts on) and `body`, so
 * the same key on another route or with another body is another request.
 * Each attempt gets a claim id of its own, held for one lease.
 */
export function idempotencyClaim(
  principal: string,
  key: string | undefined,
  scope: string,
  body: unknown,
  hold: ClaimHold,
): IdempotentRequest | undefined {
  if (key === undefined) return undefined;
  const requestHash = createHash('sha256')
    .update(`${scope}\n${JSON.stringify(body)}`)
    .digest('hex');
  return {
    principal,
    key,
    requestHash,
    claimId: randomUUID(),
    heldUntil: hold.clock().getTime() + hold.claimLeaseMs,
    after: null,
    lastSeq: null,
    response: null,
    status: 200,
    interrupted: false,
  };
}

/**
 * Claims `claim` on `log` at the hold's time: `undefined` when this
 * attempt runs the request (first, or taking over an abandoned claim),
 * else the claim recorded before.
 */
export function claimOn(
  log: SessionLog,
  claim: IdempotentRequest,
  hold: ClaimHold,
): Promise<IdempotentRequest | undefined> {
  return log.claimIdempotency(claim, hold.clock().getTime());
}

/**
 * Renews `claim` every third of its lease while its request runs, so that
 * a live claim is never taken for abandoned; resolves nothing, returns the
 * function that stops renewing. A renewal that fails is logged and tried
 * again at the next tick (the lease leaves two of them); a claim found
 * taken over (its renewals failed for a whole lease) is logged as well.
 */
export function keepClaim(log: SessionLog, claim: IdempotentRequest, hold: ClaimHold): () => void {
  let stopped = false;
  const timer = setInterval(
    () => {
      const heldUntil = hold.clock().getTime() + hold.claimLeaseMs;
      log.renewIdempotency({ ...claim, heldUntil }).then(
        (renewed) => {
          if (!renewed && !stopped) {
            hold.logger.warn('The claim of an idempotent request was taken over by a retry.', {
              key: claim.key,
            });
          }
        },
        (error: unknown) => {
          hold.logger.error('Could not renew the claim of an idempotent request.', {
            key: claim.key,
            error: String(error),
          });
        },
      );
    },
    Math.max(1, Math.floor(hold.claimLeaseMs / 3)),
  );
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * How a keyed reply's POST goes on once it claimed its key: it `run`s the
 * request (the first attempt, or one taking over a claim whose reply never
 * started), gives the `earlier` claim's outcome (or 409/422), or settles as
 * interrupted a claim it took over from a process that died after the
 * reply had started (`settleInterrupted`).
 */
export type ReplyClaim =
  | { kind: 'run' }
  | { kind: 'earlier'; earlier: IdempotentRequest }
  | { kind: 'interrupted'; claim: IdempotentRequest & { after: number } };

/**
 * Claims `claim` for a reply of `sessionId`. A claim taken over from a
 * dead process with `after` recorded (`recordStart`) is decided from the
 * log: its reply started iff an event numbered above `after` is stored. The
 * reply's first event is stored before anyone sees it, and the runner saves
 * the user's message only after it, so with none stored nothing of that
 * attempt was kept and the request runs again. (An event of another reply
 * of the session stored there counts as started too: a retry never risks
 * running the request twice.)
 */
export async function claimReply(
  log: SessionLog,
  sessionId: string,
  claim: IdempotentRequest,
  hold: ClaimHold,
): Promise<ReplyClaim> {
  const earlier = await claimOn(log, claim, hold);
  if (earlier === undefined) return { kind: 'run' };
  const tookOver =
    earlier.claimId === claim.claimId && earlier.lastSeq === null && earlier.response === null;
  if (!tookOver) return { kind: 'earlier', earlier };
  const { after } = earlier;
  if (after !== null && (await log.events(sessionId, after, 1)).length > 0) {
    return { kind: 'interrupted', claim: { ...earlier, after } };
  }
  return { kind: 'run' };
}

/**
 * Records on `claim`, before its reply of `sessionId` starts, the number
 * that reply will start after: the session's last number now (only one
 * reply of a session runs at a time, and it numbers its events from the
 * log's last number). Resolves to that number.
 */
export async function recordStart(
  log: SessionLog,
  claim: IdempotentRequest,
  sessionId: string,
): Promise<number> {
  const after = await log.lastSeq(sessionId);
  await log.startIdempotency({ ...claim, after });
  return after;
}

/** How many stored events are read at a time while looking for a reply's end. */
const PAGE = 500;

/**
 * The number of the last stored event of the reply whose first event
 * follows `after`: the events above `after` up to the next reply's
 * `REPLY_START` (excluded), as far as they were stored; `after` when none was.
 */
export async function lastStoredOfReply(
  log: SessionLog,
  sessionId: string,
  after: number,
): Promise<number> {
  let last = after;
  for (;;) {
    const page = await log.events(sessionId, last, PAGE);
    for (const event of page) {
      if (event.type === 'REPLY_START' && event.seq > after + 1) return last;
      last = event.seq;
    }
    if (page.length < PAGE) return last;
  }
}

/**
 * Settles `claim`, taken over after its reply started (`claimReply`),
 * as interrupted: its events are those up to `end` (renewing the claim
 * until `end` is known), and it has no JSON response.
 */
export async function settleInterrupted(
  log: SessionLog,
  claim: IdempotentRequest,
  hold: ClaimHold,
  end: Promise<number>,
): Promise<IdempotentRequest> {
  const stop = keepClaim(log, claim, hold);
  let lastSeq: number;
  try {
    lastSeq = await end;
  } finally {
    stop();
  }
  const settled = { ...claim, lastSeq, response: null, interrupted: true };
  await log.settleIdempotency(settled);
  return settled;
}

/** Refuses an earlier request under the key that was not this one (422). */
export function refuseOtherRequest(earlier: IdempotentRequest, requestHash: string): void {
  if (earlier.requestHash !== requestHash) throw new IdempotencyKeyError(earlier.key, false);
}

/** What checks a stored outcome against the route's schema when it is given again. */
export type OutcomeSchema<T> = { parse(value: unknown): T };

/**
 * The outcome of a POST whose answer is one JSON body: without a claim,
 * `run`'s; with one, `run` runs once under the key and a repeat gets the
 * stored outcome again, read back through `schema` (422 for another
 * request under the key, 409 while the first still runs and renews its
 * claim). A failed run frees the key, so a refused request stores nothing;
 * a claim left by a process that died is taken over and `run` runs again.
 */
export async function idempotentOutcome<T>(
  log: SessionLog,
  claim: IdempotentRequest | undefined,
  hold: ClaimHold,
  schema: OutcomeSchema<T>,
  run: () => Promise<T>,
): Promise<T> {
  if (claim === undefined) return run();
  const earlier = await claimOn(log, claim, hold);
  if (earlier !== undefined) {
    refuseOtherRequest(earlier, claim.requestHash);
    if (earlier.response === null) {
      throw new IdempotencyKeyError(earlier.key, true, earlier.heldUntil);
    }
    return schema.parse(JSON.parse(earlier.response));
  }
  let outcome: T;
  const stop = keepClaim(log, claim, hold);
  try {
    outcome = await run();
  } catch (error) {
    stop();
    await log.releaseIdempotency(claim);
    throw error;
  }
  stop();
  await log.settleIdempotency({
    ...claim,
    after: 0,
    lastSeq: 0,
    response: JSON.stringify(outcome),
  });
  return outcome;
}
