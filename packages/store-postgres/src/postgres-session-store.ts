import type {
  AgentState,
  AuditRecord,
  AuditRecordRow,
  SaveOptions,
  SessionStore,
  StoredSession,
} from '@parley/core';
import {
  InvalidStateError,
  SessionCache,
  StaleSessionError,
  decodeSessionRows,
  fromAuditRecordRow,
  parseAuditRecord,
  planSessionWrite,
  storedLease,
  toAuditRecordRow,
} from '@parley/core';
import { Pool, escapeIdentifier } from 'pg';
import { applyMigrations } from './migrations.js';
import type { SessionChange, SessionSubscription } from './session-subscription.js';
import { formatChangePayload, listenForChanges } from './session-subscription.js';
import { statementName } from './named-statement.js';
import { saveStatement } from './save-statement.js';

/**
 * Options of `PostgresSessionStore`. Give a `connectionString` (the store
 * makes and ends its own pool) or a `pool` you own (the store never ends
 * it). `schema`: where the tables live (default `'public'`; created if
 * missing). `channel`: the NOTIFY channel for changes (default
 * `'parley_session'`). `onError`: told about failures nobody awaits (an
 * idle pooled connection dropping, a subscription's connection failing, a
 * subscriber throwing); without it they are dropped. `cacheBytes`: the
 * bound of the store's session cache (see `SessionCache`; default 64 MiB,
 * 0 for none). `prepare`: run loads and saves as named prepared
 * statements, parsed once per connection (default `true`); `false` behind
 * a pooler that hands one client's statements to different server
 * connections (PgBouncer in transaction mode without `max_prepared_statements`).
 */
export type PostgresSessionStoreOptions = ({ connectionString: string } | { pool: Pool }) & {
  schema?: string;
  channel?: string;
  onError?: (error: Error) => void;
  cacheBytes?: number;
  prepare?: boolean;
};

/**
 * A row of the load statement, in array row mode (no object per row):
 * `[position, text, digest, version, message_count, lease_until]`. The
 * head row has position -1 and the state as its text; a message row has
 * its text and digest and nulls after.
 */
type LoadRow = unknown[];

/** A timestamptz column as `toISOString()` writes it (UTC, milliseconds). */
const isoText = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A durable `SessionStore` in PostgreSQL, for several server nodes sharing
 * sessions. A session is a head row (the state without its messages, its
 * version, deadline and lease) and one row per message. A save is one
 * statement, so one transaction and one round trip: a version-checked
 * write of the head, the message rows that are new or changed, the save's
 * audit records, and a `NOTIFY` of `'<sessionId>:<version>'` that other nodes
 * receive (through `subscribe`) only if it commits. The schema is migrated
 * on first use, or up front with `migrate()` / `PostgresSessionStore.open(...)`.
 *
 * @example
 * const store = await PostgresSessionStore.open({ connectionString: process.env.DATABASE_URL! });
 * const subscription = await store.subscribe(({ sessionId, version }) => refresh(sessionId, version));
 */
export class PostgresSessionStore implements SessionStore {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly schemaName: string;
  private readonly table: { sessions: string; messages: string; audit: string; schema: string };
  private readonly cache: SessionCache;
  private readonly channel: string;
  private readonly prepare: boolean;
  private readonly onError: (error: Error) => void;
  private readonly subscriptions = new Set<SessionSubscription>();
  private migrated: Promise<void> | undefined;
  private closed = false;

  constructor(options: PostgresSessionStoreOptions) {
    this.onError = options.onError ?? (() => undefined);
    this.cache = new SessionCache(options.cacheBytes);
    this.prepare = options.prepare ?? true;
    if ('pool' in options) {
      this.pool = options.pool;
      this.ownsPool = false;
    } else {
      this.pool = new Pool({ connectionString: options.connectionString });
      this.ownsPool = true;
      // An idle pooled connection that drops is replaced by the pool; report, do not crash.
      this.pool.on('error', (error) => this.onError(error));
    }
    this.schemaName = options.schema ?? 'public';
    const schema = escapeIdentifier(this.schemaName);
    this.table = {
      schema,
      sessions: `${schema}.sessions`,
      messages: `${schema}.session_messages`,
      audit: `${schema}.audit`,
    };
    this.channel = options.channel ?? 'parley_session';
  }

  /** Creates a store and migrates its schema before handing it out. */
  static async open(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    const store = new PostgresSessionStore(options);
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** `statement` under its name, to be prepared once per connection, unless `prepare` is off. */
  private named<Statement extends { text: string }>(
    statement: Statement,
  ): Statement & { name?: string } {
    return this.prepare ? { ...statement, name: statementName(statement.text) } : statement;
  }

  /**
   * Applies pending migrations (once per store; later calls wait for the
   * first). Safe to run from several nodes at once. Every other method
   * calls it first, so calling it yourself only moves the work to startup.
   */
  migrate(): Promise<void> {
    this.migrated ??= applyMigrations(this.pool, this.table.schema, this.schemaName).catch(
      (error: unknown) => {
        this.migrated = undefined;
        throw error;
      },
    );
    return this.migrated;
  }

  /**
   * One statement, so one snapshot: the head row and, when the version
   * differs from the cached one, the message rows written since it (all
   * of them when nothing is cached). A session cached at the stored
   * version costs one small row.
   */
  async load(sessionId: string): Promise<StoredSession | undefined> {
    await this.migrate();
    const base = this.cache.get(sessionId);
    const cached = base?.version ?? 0;
    const result = await this.pool.query<LoadRow>(
      this.named({
        text: `WITH head AS (
         SELECT version, state, message_count, ${isoText('lease_until')} AS lease_until
         FROM ${this.table.sessions} WHERE id = $1
       )
       SELECT -1 AS position, state AS text, NULL::text AS digest, version, message_count,
         lease_until
       FROM head
       UNION ALL
       SELECT m.position, m.message, m.digest, NULL, NULL, NULL
       FROM head JOIN ${this.table.messages} m ON m.session_id = $1
       WHERE head.message_count IS NOT NULL AND head.version <> $2
         AND m.written_version > CASE WHEN head.version > $2 THEN $2 ELSE 0 END`,
        values: [sessionId, cached],
        rowMode: 'array',
      }),
    );
    const rows = result.rows;
    const headAt = rows.findIndex((row) => row[0] === -1);
    const head = rows[headAt];
    const version = head?.[3];
    if (head === undefined || typeof version !== 'number') return undefined;
    const count = head[4];
    const lease = head[5];
    if (count !== null && typeof count !== 'number') {
      throw new InvalidStateError(`Stored message count of session '${sessionId}' is no number.`, {
        sessionId,
      });
    }
    rows.splice(headAt, 1);
    const since = version >= cached ? cached : 0;
    const { session, entry } = decodeSessionRows(
      sessionId,
      {
        version,
        head: head[1],
        messageCount: count,
        leaseUntil: typeof lease === 'string' ? lease : null,
        since,
        rows,
      },
      base,
    );
    if (entry === undefined) this.cache.delete(sessionId);
    else this.cache.set(sessionId, entry);
    return session;
  }

  async save(
    sessionId: string,
    state: AgentState,
    expectedVersion: number,
    options: SaveOptions = {},
  ): Promise<number> {
    const records = (options.audit ?? []).map((record) =>
      toAuditRecordRow(parseAuditRecord(record, sessionId)),
    );
    const plan = planSessionWrite(
      sessionId,
      state,
      expectedVersion,
      options,
      this.cache.get(sessionId),
    );
    await this.migrate();
    if (Number.isSafeInteger(expectedVersion) && expectedVersion >= 0) {
      const written = await this.pool.query<{ version: number }>(
        this.named(
          saveStatement(this.table, {
            sessionId,
            state: plan.head,
            messageCount: plan.messageCount,
            rows: plan.rows,
            trim: plan.trim,
            deadline: plan.deadline,
            leaseUntil: plan.leaseUntil,
            expectedVersion,
            records,
            channel: this.channel,
            payload: formatChangePayload({ sessionId, version: expectedVersion + 1 }),
            relaxed: options.relaxed === true,
          }),
        ),
      );
      const version = written.rows[0]?.version;
      if (version !== undefined) {
        this.cache.set(sessionId, plan.entry);
        return version;
      }
    }
    // Only a stale save reads again, for the version it lost to.
    const current = await this.pool.query<{ version: number }>(
      `SELECT version FROM ${this.table.sessions} WHERE id = $1`,
      [sessionId],
    );
    throw new StaleSessionError(sessionId, expectedVersion, current.rows[0]?.version);
  }

  async renewLease(sessionId: string, version: number, leaseUntil: string): Promise<boolean> {
    const lease = storedLease(leaseUntil);
    await this.migrate();
    const result = await this.pool.query(
      `UPDATE ${this.table.sessions} SET lease_until = $3 WHERE id = $1 AND version = $2`,
      [sessionId, version, lease],
    );
    return result.rowCount === 1;
  }

  async listDue(now: string, limit = 100): Promise<string[]> {
    await this.migrate();
    const result = await this.pool.query<{ id: string }>(
      `SELECT id FROM ${this.table.sessions} WHERE deadline IS NOT NULL AND deadline <= $1
       ORDER BY deadline, id LIMIT $2`,
      [new Date(now).toISOString(), Math.max(0, Math.floor(limit))],
    );
    return result.rows.map((row) => row.id);
  }

  async listAudit(sessionId: string): Promise<AuditRecord[]> {
    await this.migrate();
    const result = await this.pool.query<AuditRecordRow>(
      `SELECT session_id, reply_id, tool_call_id, tool_name, decision, input_digest, approver,
         ${isoText('at')} AS at, detail
       FROM ${this.table.audit} WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return result.rows.map((row) => fromAuditRecordRow(row, sessionId));
  }

  /**
   * Calls `listener` for every committed save of any session in this
   * store's schema and channel, from any node, in commit order. Uses one
   * pooled connection, held until the subscription (or the store) closes.
   * Notifications are not stored: a node that was not listening catches up
   * by loading the sessions it follows.
   */
  async subscribe(
    listener: (change: SessionChange) => void,
    options: { onError?: (error: Error) => void } = {},
  ): Promise<SessionSubscription> {
    const subscription = await listenForChanges(
      this.pool,
      this.channel,
      listener,
      options.onError ?? this.onError,
    );
    const tracked: SessionSubscription = {
      close: async () => {
        this.subscriptions.delete(tracked);
        await subscription.close();
      },
    };
    this.subscriptions.add(tracked);
    return tracked;
  }

  /** Closes every subscription and, if the store made its pool, ends it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    if (this.ownsPool) await this.pool.end();
  }
}
