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
  decodeStoredState,
  fromAuditRecordRow,
  parkedDeadline,
  parseAuditRecord,
  toAuditRecordRow,
} from '@parley/core';
import type { PoolClient } from 'pg';
import { Pool, escapeIdentifier } from 'pg';
import { applyMigrations } from './migrations.js';
import type { SessionChange, SessionSubscription } from './session-subscription.js';
import { formatChangePayload, listenForChanges } from './session-subscription.js';
import { inTransaction } from './transaction.js';

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

type SessionRow = { version: number; state: unknown };

/**
 * A durable `SessionStore` in PostgreSQL, for several server nodes sharing
 * sessions. A save is one transaction: a version-checked write of the
 * session row, the save's audit records, and a `NOTIFY` of
 * `'<sessionId>:<version>'` that other nodes receive (through `subscribe`)
 * only if the transaction commits. The schema is migrated on first use, or
 * up front with `migrate()` / `PostgresSessionStore.open(...)`.
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
      `SELECT version, state FROM ${this.table.sessions} WHERE id = $1`,
      [sessionId],
    );
    const row = result.rows[0];
    if (row === undefined) return undefined;
    return { state: decodeStoredState(sessionId, row.state), version: row.version };
  }

  async save(
    sessionId: string,
    state: AgentState,
    expectedVersion: number,
    options: SaveOptions = {},
  ): Promise<number> {
    const records = (options.audit ?? []).map((record) => parseAuditRecord(record, sessionId));
    const text = serializeAgentState(state);
    const deadline = parkedDeadline(state);
    await this.migrate();
    // A relaxed save commits without waiting for its WAL flush; the next
    // strict commit flushes it along (the WAL is one sequence).
    const begin = options.relaxed === true ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN';
    return inTransaction(
      this.pool,
      async (client) => {
        const version = await this.writeSession(client, sessionId, text, deadline, expectedVersion);
        for (const record of records) await this.insertAudit(client, record);
        await client.query('SELECT pg_notify($1, $2)', [
          this.channel,
          formatChangePayload({ sessionId, version }),
        ]);
        return version;
      },
      begin,
    );
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
         to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, detail
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

  /** The version-checked write: one row changes, or the save is stale. */
  private async writeSession(
    client: PoolClient,
    sessionId: string,
    text: string,
    deadline: string | null,
    expectedVersion: number,
  ): Promise<number> {
    if (Number.isSafeInteger(expectedVersion) && expectedVersion >= 0) {
      const written =
        expectedVersion === 0
          ? await client.query<{ version: number }>(
              `INSERT INTO ${this.table.sessions} (id, version, state, deadline)
               VALUES ($1, 1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING version`,
              [sessionId, text, deadline],
            )
          : await client.query<{ version: number }>(
              `UPDATE ${this.table.sessions}
               SET state = $2, version = version + 1, updated_at = now(), deadline = $4
               WHERE id = $1 AND version = $3 RETURNING version`,
              [sessionId, text, expectedVersion, deadline],
            );
      const version = written.rows[0]?.version;
      if (version !== undefined) return version;
    }
    const current = await client.query<{ version: number }>(
      `SELECT version FROM ${this.table.sessions} WHERE id = $1`,
      [sessionId],
    );
    throw new StaleSessionError(sessionId, expectedVersion, current.rows[0]?.version);
  }

  private async insertAudit(client: PoolClient, record: AuditRecord): Promise<void> {
    const row = toAuditRecordRow(record);
    await client.query(
      `INSERT INTO ${this.table.audit} (session_id, reply_id, tool_call_id, tool_name, decision,
         input_digest, approver, at, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        row.session_id,
        row.reply_id,
        row.tool_call_id,
        row.tool_name,
        row.decision,
        row.input_digest,
        row.approver,
        row.at,
        row.detail,
      ],
    );
  }
}
