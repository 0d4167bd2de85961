import type {
  AgentState,
  AuditRecord,
  AuditRecordRow,
  SaveOptions,
  SessionStore,
  StoredSession,
} from '@parley/core';
import {
  serializeAgentState,
  StaleSessionError,
  decodeStoredSession,
  fromAuditRecordRow,
  parkedDeadline,
  parseAuditRecord,
  storedLease,
  toAuditRecordRow,
} from '@parley/core';
import { Pool, escapeIdentifier } from 'pg';
import { applyMigrations } from './migrations.js';
import type { SessionChange, SessionSubscription } from './session-subscription.js';
import { formatChangePayload, listenForChanges } from './session-subscription.js';
import { saveStatement } from './save-statement.js';

/**
 * Options of `PostgresSessionStore`. Give a `connectionString` (the store
 * makes and ends its own pool) or a `pool` you own (the store never ends
 * it). `schema`: where the tables live (default `'public'`; created if
 * missing). `channel`: the NOTIFY channel for changes (default
 * `'parley_session'`). `onError`: told about failures nobody awaits (an
 * idle pooled connection dropping, a subscription's connection failing, a
 * subscriber throwing); without it they are dropped.
 */
export type PostgresSessionStoreOptions = ({ connectionString: string } | { pool: Pool }) & {
  schema?: string;
  channel?: string;
  onError?: (error: Error) => void;
};

type SessionRow = { version: number; state: unknown; lease_until: string | null };

/** A timestamptz column as `toISOString()` writes it (UTC, milliseconds). */
const isoText = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A durable `SessionStore` in PostgreSQL, for several server nodes sharing
 * sessions. A save is one statement, so one transaction and one round
 * trip: a version-checked write of the session row, the save's audit
 * records, and a `NOTIFY` of `'<sessionId>:<version>'` that other nodes
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
  private readonly table: { sessions: string; audit: string; schema: string };
  private readonly channel: string;
  private readonly onError: (error: Error) => void;
  private readonly subscriptions = new Set<SessionSubscription>();
  private migrated: Promise<void> | undefined;
  private closed = false;

  constructor(options: PostgresSessionStoreOptions) {
    this.onError = options.onError ?? (() => undefined);
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
    this.table = { schema, sessions: `${schema}.sessions`, audit: `${schema}.audit` };
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

  async load(sessionId: string): Promise<StoredSession | undefined> {
    await this.migrate();
    const result = await this.pool.query<SessionRow>(
      `SELECT version, state, ${isoText('lease_until')} AS lease_until
       FROM ${this.table.sessions} WHERE id = $1`,
      [sessionId],
    );
    const row = result.rows[0];
    if (row === undefined) return undefined;
    return decodeStoredSession(sessionId, { ...row, leaseUntil: row.lease_until });
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
    const text = serializeAgentState(state);
    const deadline = parkedDeadline(state);
    const lease = storedLease(options.leaseUntil);
    await this.migrate();
    if (Number.isSafeInteger(expectedVersion) && expectedVersion >= 0) {
      const written = await this.pool.query<{ version: number }>(
        saveStatement(this.table, {
          sessionId,
          state: text,
          deadline,
          leaseUntil: lease,
          expectedVersion,
          records,
          channel: this.channel,
          payload: formatChangePayload({ sessionId, version: expectedVersion + 1 }),
          relaxed: options.relaxed === true,
        }),
      );
      const version = written.rows[0]?.version;
      if (version !== undefined) return version;
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
