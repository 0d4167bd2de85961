import { formatAppendNotice } from './append-notices.js';
import { EventNumberTakenError } from './errors.js';
import type { StoredEvent } from './server-log.js';

/** One session's append, waiting for the batch it goes out with. */
type PendingAppend = {
  sessionId: string;
  events: readonly StoredEvent[];
  reservedThrough: number;
  resolve: () => void;
  reject: (error: unknown) => void;
};

/**
 * What an append alone failed with: 23505 (unique violation) means a number
 * this session already has, stored first by another node.
 */
function refusal(pending: PendingAppend, error: unknown): unknown {
  if (error instanceof Error && 'code' in error && error.code === '23505') {
    return new EventNumberTakenError(pending.sessionId);
  }
  return error;
}

/** Runs one statement with its parameters (the log's pool, after its migrations). */
export type RunStatement = (text: string, values: unknown[]) => Promise<unknown>;

/**
 * Group commit for `PostgresServerLog.append`: the appends queued in one
 * turn of the event loop go out as one statement on the next (their rows,
 * their reservations and their notices in one transaction), so replies
 * running side by side share a commit and its WAL flush instead of each
 * waiting for one of its own (commits that NOTIFY are serialized by
 * Postgres). If the batch fails, each append is tried alone, so a bad
 * append fails only its own caller. An append's promise resolves only
 * once it is committed.
 */
export class PostgresAppendBatch {
  private queued: PendingAppend[] = [];

  constructor(
    private readonly run: RunStatement,
    private readonly eventsTable: string,
    private readonly headsTable: string,
    private readonly channel: string,
  ) {}

  /** Queues an append for the next batch; resolves once it is committed. */
  append(sessionId: string, events: readonly StoredEvent[], reservedThrough: number) {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ sessionId, events, reservedThrough, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    try {
      await this.write(batch);
      for (const pending of batch) pending.resolve();
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(refusal(batch[0]!, error));
        return;
      }
    }
    // One after another, in the order they were queued (a session's appends stay in order).
    for (const pending of batch) {
      try {
        await this.write([pending]);
        pending.resolve();
      } catch (error) {
        pending.reject(refusal(pending, error));
      }
    }
  }

  /** One statement: every row, each session's reservation and its notice commit together. */
  private async write(batch: readonly PendingAppend[]): Promise<void> {
    const rows = batch.flatMap((pending) =>
      pending.events.map((event) => ({ sessionId: pending.sessionId, event })),
    );
    // The later append of a session wins, as it would one statement after
    // another. A reservation row is written only to reach past the numbers
    // the events hold themselves (and only when it changes), or to give
    // numbers back.
    const heads = new Map<string, number>();
    const lowered = new Map<string, number>();
    const lastSeqs = new Map<string, number>();
    for (const pending of batch) {
      const { sessionId, reservedThrough } = pending;
      const top = pending.events.reduce((highest, event) => Math.max(highest, event.seq), 0);
      heads.delete(sessionId);
      lowered.delete(sessionId);
      (reservedThrough > top ? heads : lowered).set(sessionId, reservedThrough);
      const last = pending.events.at(-1);
      if (last !== undefined) lastSeqs.set(sessionId, last.seq);
    }
    await this.run(
      `WITH inserted AS (
         INSERT INTO ${this.eventsTable} (session_id, seq, type, data)
         SELECT session_id, seq, type, data
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])
           AS event (session_id, seq, type, data)
         RETURNING 1
       ), head AS (
         INSERT INTO ${this.headsTable} AS h (session_id, reserved)
         SELECT session_id, reserved FROM unnest($5::text[], $6::bigint[])
           AS head (session_id, reserved)
         ON CONFLICT (session_id) DO UPDATE SET reserved = excluded.reserved
           WHERE h.reserved <> excluded.reserved
         RETURNING 1
       ), lowered AS (
         UPDATE ${this.headsTable} AS h SET reserved = given.reserved
         FROM unnest($9::text[], $10::bigint[]) AS given (session_id, reserved)
         WHERE h.session_id = given.session_id AND h.reserved > given.reserved
         RETURNING 1
       )
       SELECT pg_notify($7, notice) FROM unnest($8::text[]) AS notice`,
      [
        rows.map((row) => row.sessionId),
        rows.map((row) => row.event.seq),
        rows.map((row) => row.event.type),
        rows.map((row) => row.event.data),
        [...heads.keys()],
        [...heads.values()],
        this.channel,
        [...lastSeqs].map(([sessionId, seq]) => formatAppendNotice({ sessionId, seq })),
        [...lowered.keys()],
        [...lowered.values()],
      ],
    );
  }
}
