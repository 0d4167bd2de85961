import { named } from './named-statement.js';
import type { LogQuery } from './postgres-api-keys.js';
import type { IdempotentRequest } from '../session-log.js';

type IdempotencyRow = {
  principal: string;
  key: string;
  request_hash: string;
  claim_id: string;
  held_until: string;
  after: string | null;
  last_seq: string | null;
  response: string | null;
  interrupted: boolean;
  status: number;
};

const numberOrNull = (value: string | null): number | null =>
  value === null ? null : Number(value);

function idempotentOfRow(row: IdempotencyRow): IdempotentRequest {
  return {
    principal: row.principal,
    key: row.key,
    requestHash: row.request_hash,
    claimId: row.claim_id,
    heldUntil: Number(row.held_until),
    after: numberOrNull(row.after),
    lastSeq: numberOrNull(row.last_seq),
    response: row.response,
    interrupted: row.interrupted,
    status: row.status,
  };
}

/**
 * The `Idempotency-Key` claims of a `PostgresServerLog`, in `table` (its
 * `parley_idempotency`), through its `query` (see `SessionLog` for what
 * each call promises).
 */
export class PostgresIdempotency {
  constructor(
    private readonly query: LogQuery,
    private readonly table: string,
  ) {}

  async claimIdempotency(
    request: IdempotentRequest,
    now: number,
  ): Promise<IdempotentRequest | undefined> {
    // A claim released, or taken over by another, between two statements is read again.
    for (;;) {
      const claimed = await this.query<{ key: string }>(
        named(`INSERT INTO ${this.table} (principal, key, request_hash, claim_id, held_until)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING key`),
        [request.principal, request.key, request.requestHash, request.claimId, request.heldUntil],
      );
      if (claimed.length > 0) return undefined;
      const [row] = await this.query<IdempotencyRow>(
        named(`SELECT principal, key, request_hash, claim_id, held_until, after, last_seq, response,
           interrupted, status
         FROM ${this.table} WHERE principal = $1 AND key = $2`),
        [request.principal, request.key],
      );
      if (row === undefined) continue;
      const earlier = idempotentOfRow(row);
      const abandoned =
        earlier.requestHash === request.requestHash &&
        earlier.lastSeq === null &&
        earlier.response === null &&
        earlier.heldUntil < now;
      if (!abandoned) return earlier;
      // Compare-and-set on the claim id: of concurrent takers, one updates the row.
      const taken = await this.query<IdempotencyRow>(
        named(`UPDATE ${this.table} SET claim_id = $1, held_until = $2
         WHERE principal = $3 AND key = $4 AND claim_id = $5
           AND last_seq IS NULL AND response IS NULL AND held_until < $6
         RETURNING principal, key, request_hash, claim_id, held_until, after, last_seq, response,
           interrupted, status`),
        [request.claimId, request.heldUntil, request.principal, request.key, earlier.claimId, now],
      );
      const [took] = taken;
      // A reply that had started is not run again: the taker only settles it.
      if (took !== undefined) return took.after === null ? undefined : idempotentOfRow(took);
    }
  }

  async renewIdempotency(request: IdempotentRequest): Promise<boolean> {
    const renewed = await this.query<{ key: string }>(
      named(`UPDATE ${this.table} SET held_until = $1
       WHERE principal = $2 AND key = $3 AND claim_id = $4
         AND last_seq IS NULL AND response IS NULL
       RETURNING key`),
      [request.heldUntil, request.principal, request.key, request.claimId],
    );
    return renewed.length > 0;
  }

  async startIdempotency(request: IdempotentRequest): Promise<void> {
    await this.query(
      named(`UPDATE ${this.table} SET after = $1
       WHERE principal = $2 AND key = $3 AND claim_id = $4
         AND last_seq IS NULL AND response IS NULL`),
      [request.after, request.principal, request.key, request.claimId],
    );
  }

  async settleIdempotency(request: IdempotentRequest): Promise<void> {
    await this.query(
      named(`UPDATE ${this.table}
       SET after = $1, last_seq = $2, response = $3, interrupted = $4, status = $5
       WHERE principal = $6 AND key = $7 AND claim_id = $8`),
      [
        request.after,
        request.lastSeq,
        request.response,
        request.interrupted,
        request.status,
        request.principal,
        request.key,
        request.claimId,
      ],
    );
  }

  async releaseIdempotency(request: IdempotentRequest): Promise<void> {
    await this.query(
      named(`DELETE FROM ${this.table}
       WHERE principal = $1 AND key = $2 AND claim_id = $3`),
      [request.principal, request.key, request.claimId],
    );
  }
}
