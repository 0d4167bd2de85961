import { createHash } from 'node:crypto';
import { IdempotencyKeyError } from './errors.js';
import type { IdempotentRequest, SessionLog } from './server-log.js';

/**
 * The claim a POST makes on its `Idempotency-Key`, or undefined without
 * one. The digest covers `scope` (what the route acts on) and `body`, so
 * the same key on another route or with another body is another request.
 */
export function idempotencyClaim(
  principal: string,
  key: string | undefined,
  scope: string,
  body: unknown,
): IdempotentRequest | undefined {
  if (key === undefined) return undefined;
  const requestHash = createHash('sha256')
    .update(`${scope}\n${JSON.stringify(body)}`)
    .digest('hex');
  return { principal, key, requestHash, after: null, lastSeq: null, response: null };
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
 * request under the key, 409 while the first still runs). A failed run
 * frees the key, so a refused request stores nothing.
 */
export async function idempotentOutcome<T>(
  log: SessionLog,
  claim: IdempotentRequest | undefined,
  schema: OutcomeSchema<T>,
  run: () => Promise<T>,
): Promise<T> {
  if (claim === undefined) return run();
  const earlier = await log.claimIdempotency(claim);
  if (earlier !== undefined) {
    refuseOtherRequest(earlier, claim.requestHash);
    if (earlier.response === null) throw new IdempotencyKeyError(earlier.key, true);
    return schema.parse(JSON.parse(earlier.response));
  }
  let outcome: T;
  try {
    outcome = await run();
  } catch (error) {
    await log.releaseIdempotency(claim.principal, claim.key);
    throw error;
  }
  await log.settleIdempotency({
    ...claim,
    after: 0,
    lastSeq: 0,
    response: JSON.stringify(outcome),
  });
  return outcome;
}
