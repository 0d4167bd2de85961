import type Database from 'better-sqlite3';
import type { IdempotentRequest } from '../session-log.js';

type IdempotencyRow = {
  principal: string;
  key: string;
  request_hash: string;
  claim_id: string;
  held_until: number;
  after: number | null;
  last_seq: number | null;
  response: string | null;
  interrupted: number;
  status: number;
};

function idempotentOfRow(row: IdempotencyRow): IdempotentRequest {
  return {
    principal: row.principal,
    key: row.key,
    requestHash: row.request_hash,
    claimId: row.claim_id,
    heldUntil: row.held_until,
    after: row.after,
    lastSeq: row.last_seq,
    response: row.response,
    interrupted: row.interrupted !== 0,
    status: row.status,
  };
}

/**
 * The `Idempotency-Key` claims of a `SqliteServerLog`, in its table
 * `parley_idempotency` (see `SessionLog` for what each call promises).
 */
export class SqliteIdempotency {
  constructor(private readonly database: Database.Database) {}

  claimIdempotency(
    request: IdempotentRequest,
    now: number,
  ): Promise<IdempotentRequest | undefined> {
    const claim = this.database.transaction((): IdempotentRequest | undefined => {
      const earlier = this.database
        .prepare<[string, string], IdempotencyRow>(
          `SELECT principal, key, request_hash, claim_id, held_until, after, last_seq, response,
             interrupted, status
           FROM parley_idempotency WHERE principal = ? AND key = ?`,
        )
        .get(request.principal, request.key);
      if (earlier === undefined) {
        this.database
          .prepare(
            `INSERT INTO parley_idempotency (principal, key, request_hash, claim_id, held_until)
             VALUES (?, ?, ?, ?, ?)`,
          )
          .run(
            request.principal,
            request.key,
            request.requestHash,
            request.claimId,
            request.heldUntil,
          );
        return undefined;
      }
      const abandoned =
        earlier.request_hash === request.requestHash &&
        earlier.last_seq === null &&
        earlier.response === null &&
        earlier.held_until < now;
      if (abandoned) {
        // The write lock of this transaction makes the compare-and-set one step.
        const taken = this.database
          .prepare(
            `UPDATE parley_idempotency SET claim_id = ?, held_until = ?
             WHERE principal = ? AND key = ? AND claim_id = ?`,
          )
          .run(
            request.claimId,
            request.heldUntil,
            request.principal,
            request.key,
            earlier.claim_id,
          );
        if (taken.changes === 1) {
          // A reply that had started is not run again: the taker only settles it.
          if (earlier.after === null) return undefined;
          return {
            ...idempotentOfRow(earlier),
            claimId: request.claimId,
            heldUntil: request.heldUntil,
          };
        }
      }
      return idempotentOfRow(earlier);
    });
    return Promise.resolve(claim.immediate());
  }

  renewIdempotency(request: IdempotentRequest): Promise<boolean> {
    const renewed = this.database
      .prepare(
        `UPDATE parley_idempotency SET held_until = ?
         WHERE principal = ? AND key = ? AND claim_id = ? AND last_seq IS NULL AND response IS NULL`,
      )
      .run(request.heldUntil, request.principal, request.key, request.claimId);
    return Promise.resolve(renewed.changes === 1);
  }

  startIdempotency(request: IdempotentRequest): Promise<void> {
    this.database
      .prepare(
        `UPDATE parley_idempotency SET after = ?
         WHERE principal = ? AND key = ? AND claim_id = ? AND last_seq IS NULL AND response IS NULL`,
      )
      .run(request.after, request.principal, request.key, request.claimId);
    return Promise.resolve();
  }

  settleIdempotency(request: IdempotentRequest): Promise<void> {
    this.database
      .prepare(
        `UPDATE parley_idempotency
         SET after = ?, last_seq = ?, response = ?, interrupted = ?, status = ?
         WHERE principal = ? AND key = ? AND claim_id = ?`,
      )
      .run(
        request.after,
        request.lastSeq,
        request.response,
        request.interrupted ? 1 : 0,
        request.status,
        request.principal,
        request.key,
        request.claimId,
      );
    return Promise.resolve();
  }

  releaseIdempotency(request: IdempotentRequest): Promise<void> {
    this.database
      .prepare('DELETE FROM parley_idempotency WHERE principal = ? AND key = ? AND claim_id = ?')
      .run(request.principal, request.key, request.claimId);
    return Promise.resolve();
  }
}
