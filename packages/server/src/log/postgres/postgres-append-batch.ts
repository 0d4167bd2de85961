import { formatAppendNotice } from './append-notices.js';
import { EventNumberTakenError } from '../../errors.js';
import { named } from './named-statement.js';
import type { NamedStatement } from './named-statement.js';
import type { AppendOptions, StoredEvent, WaitingRefresh } from '../session-log.js';

/**
 * One session's append, waiting for the batch it goes out with.
 * `reservedThrough` is `undefined` for an approvals index refresh alone.
 */
type PendingAppend = {
  sessionId: string;
  events: readonly StoredEvent[];
  reservedThrough: number | undefined;
  options: AppendOptions;
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
export type RunStatement = (statement: NamedStatement, values: unknown[]) => Promise<unknown[]>;

/** The tables a batch writes, schema-qualified and quoted. */
export type AppendTables = {
  events: string;
  heads: string;
  waitingVersions: string;
  waitingCalls: string;
};

/** What the batch writes, one entry per session (the later append of a session wins). */
type Plan = {
  heads: Map<string, number>;
  lowered: Map<string, number>;
  lastSeqs: Map<string, number>;
  guards: Map<string, number>;
  waiting: Map<string, WaitingRefresh>;
};

function planOf(batch: readonly PendingAppend[]): Plan {
  const plan: Plan = {
    heads: new Map(),
    lowered: new Map(),
    lastSeqs: new Map(),
    guards: new Map(),
    waiting: new Map(),
  };
  for (const { sessionId, events, reservedThrough, options } of batch) {
    // A reservation row is written only to reach past the numbers the
    // events hold themselves (and only when it changes), or to give numbers back.
    if (reservedThrough !== undefined) {
      const top = events.reduce((highest, event) => Math.max(highest, event.seq), 0);
      plan.heads.delete(sessionId);
      plan.lowered.delete(sessionId);
      (reservedThrough > top ? plan.heads : plan.lowered).set(sessionId, reservedThrough);
    }
    const last = events.at(-1);
    if (last !== undefined) plan.lastSeqs.set(sessionId, last.seq);
    const { after, waiting } = options;
    if (after !== undefined)
      plan.guards.set(sessionId, Math.min(after, plan.guards.get(sessionId) ?? after));
    // Of several refreshes, the one from the latest state is the one that stays.
    const earlier = plan.waiting.get(sessionId);
    if (waiting !== undefined && (earlier === undefined || waiting.version >= earlier.version)) {
      plan.waiting.set(sessionId, waiting);
    }
  }
  return plan;
}

/**
 * The batch's one statement, over `tables`. Its parameters are arrays, one
 * element per row, session or call, so its text is the same for every batch.
 */
function appendStatement(tables: AppendTables): string {
  const { events, heads, waitingVersions, waitingCalls } = tables;
  // `refused`: sessions with a number above their `after` stored or
  // reserved; every other part leaves them out. A refresh writes the
  // version row first, and only if that moved, its calls under that
  // version, removing the older ones it does not list. A refresh that
  // waited on another's lock of the version row reads the calls as they
  // were before the other's: any it leaves behind carry an older
  // version, which `listWaiting` passes over and the next refresh
  // removes. The deletes and the writes touch different keys.
  return `WITH refused AS (
     SELECT guard.session_id FROM unnest($11::text[], $12::bigint[]) AS guard (session_id, after)
     WHERE EXISTS (SELECT 1 FROM ${events} e
                   WHERE e.session_id = guard.session_id AND e.seq > guard.after)
        OR EXISTS (SELECT 1 FROM ${heads} h
                   WHERE h.session_id = guard.session_id AND h.reserved > guard.after)
   ), inserted AS (
     INSERT INTO ${events} (session_id, seq, type, data)
     SELECT session_id, seq, type, data
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])
       AS event (session_id, seq, type, data)
     WHERE event.session_id NOT IN (SELECT session_id FROM refused)
     RETURNING 1
   ), head AS (
     INSERT INTO ${heads} AS h (session_id, reserved)
     SELECT session_id, reserved FROM unnest($5::text[], $6::bigint[])
       AS head (session_id, reserved)
     WHERE head.session_id NOT IN (SELECT session_id FROM refused)
     ON CONFLICT (session_id) DO UPDATE SET reserved = excluded.reserved
       WHERE h.reserved <> excluded.reserved
     RETURNING 1
   ), lowered AS (
     UPDATE ${heads} AS h SET reserved = given.reserved
     FROM unnest($9::text[], $10::bigint[]) AS given (session_id, reserved)
     WHERE h.session_id = given.session_id AND h.reserved > given.reserved
       AND given.session_id NOT IN (SELECT session_id FROM refused)
     RETURNING 1
   ), newer AS (
     INSERT INTO ${waitingVersions} AS known (session_id, version)
     SELECT session_id, version FROM unnest($13::text[], $14::bigint[])
       AS given (session_id, version)
     WHERE given.session_id NOT IN (SELECT session_id FROM refused)
     ON CONFLICT (session_id) DO UPDATE SET version = excluded.version
       WHERE excluded.version >= known.version
     RETURNING session_id, version
   ), given_calls AS (
     SELECT * FROM unnest($15::text[], $16::text[], $17::integer[], $18::text[], $19::text[],
                          $20::text[])
       AS given (session_id, id, position, reply_id, deadline, tool_call)
   ), cleared AS (
     DELETE FROM ${waitingCalls} AS call USING newer
     WHERE call.session_id = newer.session_id AND call.version < newer.version
       AND NOT EXISTS (SELECT 1 FROM given_calls given
                       WHERE given.session_id = call.session_id AND given.id = call.tool_call_id)
     RETURNING 1
   ), written AS (
     INSERT INTO ${waitingCalls} AS call
       (session_id, tool_call_id, position, reply_id, deadline, tool_call, version)
     SELECT given.session_id, given.id, given.position, given.reply_id, given.deadline,
            given.tool_call, newer.version
     FROM given_calls given JOIN newer ON newer.session_id = given.session_id
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET position = excluded.position,
       reply_id = excluded.reply_id, deadline = excluded.deadline,
       tool_call = excluded.tool_call, version = excluded.version
     WHERE call.version <= excluded.version
     RETURNING 1
   )
   SELECT session_id FROM refused
   UNION ALL
   SELECT NULL FROM unnest($8::text[], $21::text[]) AS notice (payload, session_id)
   WHERE CASE WHEN notice.session_id IN (SELECT session_id FROM refused) THEN false
              ELSE pg_notify($7, notice.payload) IS NULL END`;
}

/**
 * Group commit for `PostgresServerLog.append` and `setWaiting`: the writes
 * queued in one turn of the event loop go out as one statement on the next
 * (their rows, their reservations, their approvals index refreshes and
 * their notices in one transaction), so replies running side by side share
 * a commit and its WAL flush instead of each waiting for one of its own
 * (commits that NOTIFY are serialized by Postgres). An append whose `after`
 * no longer holds stores nothing, and nothing else of its session in the
 * batch is stored either; those others are tried again alone. If the batch
 * fails, each write is tried alone, so a bad write fails only its own
 * caller. A write's promise resolves only once it is committed.
 */
export class PostgresAppendBatch {
  private queued: PendingAppend[] = [];
  private readonly statement: NamedStatement;

  constructor(
    private readonly run: RunStatement,
    tables: AppendTables,
    private readonly channel: string,
  ) {
    this.statement = named(appendStatement(tables));
  }

  /** Queues an append for the next batch; resolves once it is committed. */
  append(
    sessionId: string,
    events: readonly StoredEvent[],
    reservedThrough: number | undefined,
    options: AppendOptions = {},
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ sessionId, events, reservedThrough, options, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    let refused: Set<string>;
    try {
      refused = await this.write(batch);
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(refusal(batch[0]!, error));
        return;
      }
      await this.oneByOne(batch);
      return;
    }
    const again: PendingAppend[] = [];
    for (const pending of batch) {
      if (!refused.has(pending.sessionId)) pending.resolve();
      else if (pending.options.after !== undefined) {
        pending.reject(new EventNumberTakenError(pending.sessionId));
      } else again.push(pending);
    }
    await this.oneByOne(again);
  }

  /** Each write alone, in the order they were queued (a session's appends stay in order). */
  private async oneByOne(batch: readonly PendingAppend[]): Promise<void> {
    for (const pending of batch) {
      try {
        const refused = await this.write([pending]);
        if (refused.size === 0) pending.resolve();
        else pending.reject(new EventNumberTakenError(pending.sessionId));
      } catch (error) {
        pending.reject(refusal(pending, error));
      }
    }
  }

  /**
   * One statement: every row, each session's reservation, approvals index
   * refresh and notice commit together. Resolves to the sessions whose
   * `after` no longer held: nothing of theirs was written.
   */
  private async write(batch: readonly PendingAppend[]): Promise<Set<string>> {
    const rows = batch.flatMap((pending) =>
      pending.events.map((event) => ({ sessionId: pending.sessionId, event })),
    );
    const plan = planOf(batch);
    const calls = [...plan.waiting].flatMap(([sessionId, refresh]) =>
      refresh.approvals.map((approval, position) => ({ sessionId, approval, position })),
    );
    const result = await this.run(this.statement, [
      rows.map((row) => row.sessionId),
      rows.map((row) => row.event.seq),
      rows.map((row) => row.event.type),
      rows.map((row) => row.event.data),
      [...plan.heads.keys()],
      [...plan.heads.values()],
      this.channel,
      [...plan.lastSeqs].map(([sessionId, seq]) => formatAppendNotice({ sessionId, seq })),
      [...plan.lowered.keys()],
      [...plan.lowered.values()],
      [...plan.guards.keys()],
      [...plan.guards.values()],
      [...plan.waiting.keys()],
      [...plan.waiting.values()].map((refresh) => refresh.version),
      calls.map((call) => call.sessionId),
      calls.map((call) => call.approval.toolCall.id),
      calls.map((call) => call.position),
      calls.map((call) => call.approval.replyId),
      calls.map((call) => call.approval.deadline),
      calls.map((call) => JSON.stringify(call.approval.toolCall)),
      [...plan.lastSeqs.keys()],
    ]);
    const refused = new Set<string>();
    for (const row of result as { session_id: string | null }[]) {
      if (row.session_id !== null) refused.add(row.session_id);
    }
    return refused;
  }
}
