import { InvalidInputError } from '@parley/core';
import { Pool, escapeIdentifier } from 'pg';
import { AppendNotices } from './append-notices.js';
import { PostgresApiKeys } from './postgres-api-keys.js';
import type { LogQuery } from './postgres-api-keys.js';
import { PostgresAppendBatch } from './postgres-append-batch.js';
import { PostgresIdempotency } from './postgres-idempotency.js';
import { applyLogMigrations } from './postgres-log-migrations.js';
import { isWaitingCall } from '../../waiting/session-summary.js';
import { EventHeads } from '../../events/event-heads.js';
import { named } from './named-statement.js';
import type { NamedStatement } from './named-statement.js';
import type {
  AppendOptions,
  Approval,
  ApiKeyRecord,
  ApiKeyStore,
  IdempotentRequest,
  SessionLog,
  SessionPage,
  SessionRecord,
  StoredEvent,
} from '../session-log.js';

/**
 * Options of `PostgresServerLog`. Give a `connectionString` (the log makes
 * and ends its own pool) or a `pool` you own (never ended by the log).
 * `schema`: where the tables live (default `'public'`; created if missing),
 * usually the session store's. `channel`: the NOTIFY channel appends are
 * announced on (default `'parley_events'`; every node of a deployment
 * must use the same). `onError`: told about failures nobody awaits (the
 * LISTEN connection dropping, an idle pooled connection failing).
 * `prepare`: run the frequent statements as named prepared statements,
 * parsed once per connection (default `true`); `false` behind a pooler
 * that hands one client's statements to different server connections
 * (PgBouncer in transaction mode without `max_prepared_statements`).
 */
export type PostgresServerLogOptions = ({ connectionString: string } | { pool: Pool }) & {
  schema?: string;
  channel?: string;
  onError?: (error: Error) => void;
  prepare?: boolean;
};

type SessionRow = { id: string; position: string; owner: string; created_at: string };
type EventRow = { seq: string; type: string; data: string };
type WaitingRow = {
  session_id: string;
  reply_id: string;
  deadline: string | null;
  tool_call: string;
};

function approvalOfRow(row: WaitingRow): Approval | undefined {
  const toolCall: unknown = JSON.parse(row.tool_call);
  if (!isWaitingCall(toolCall)) return undefined;
  return { sessionId: row.session_id, replyId: row.reply_id, deadline: row.deadline, toolCall };
}

/**
 * The server's session records, event log, approvals index, idempotency
 * claims and API keys in PostgreSQL, for several nodes sharing one
 * database. An append is one statement (so one transaction): the events,
 * the reservation, and a `NOTIFY` of `'<sessionId>:<seq>'` that every node
 * receives once it commits; `watch` hands those to followers, which read
 * the rows (see docs/decisions/server-0002-several-nodes.md).
 *
 * @example
 * const log = await PostgresServerLog.open({ connectionString: process.env.DATABASE_URL! });
 * const server = createServer({ store, log, agent, authenticate: apiKeyAuth(log) });
 */
export class PostgresServerLog implements SessionLog, ApiKeyStore {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly schemaName: string;
  private readonly schema: string;
  private readonly channel: string;
  private readonly prepare: boolean;
  private readonly notices: AppendNotices;
  private readonly appends: PostgresAppendBatch;
  /** The idempotency claims and the API keys, in tables of their own. */
  private readonly claims: PostgresIdempotency;
  private readonly keys: PostgresApiKeys;
  /**
   * Sessions' heads as this process last read or wrote them: other nodes
   * may have stored more since, so they only number appends made with `after`.
   */
  private readonly heads = new EventHeads();
  private migrated: Promise<void> | undefined;

  constructor(options: PostgresServerLogOptions) {
    const onError = options.onError ?? (() => undefined);
    if ('pool' in options) {
      this.pool = options.pool;
      this.ownsPool = false;
    } else {
      this.pool = new Pool({ connectionString: options.connectionString });
      this.ownsPool = true;
      this.pool.on('error', onError);
    }
    this.schemaName = options.schema ?? 'public';
    this.schema = escapeIdentifier(this.schemaName);
    this.channel = options.channel ?? 'parley_events';
    this.prepare = options.prepare ?? true;
    this.notices = new AppendNotices(this.pool, this.channel, onError);
    this.appends = new PostgresAppendBatch(
      (statement, values) => this.query(statement, values),
      {
        events: this.table('parley_session_events'),
        heads: this.table('parley_session_event_heads'),
        waitingVersions: this.table('parley_waiting_versions'),
        waitingCalls: this.table('parley_waiting_calls'),
      },
      this.channel,
    );
    const query: LogQuery = (statement, values) => this.query(statement, values);
    this.claims = new PostgresIdempotency(query, this.table('parley_idempotency'));
    this.keys = new PostgresApiKeys(query, this.table('parley_api_keys'));
  }

  /** Creates a log and migrates its tables before handing it out. */
  static async open(options: PostgresServerLogOptions): Promise<PostgresServerLog> {
    const log = new PostgresServerLog(options);
    try {
      await log.migrate();
    } catch (error) {
      await log.close();
      throw error;
    }
    return log;
  }

  /**
   * Applies pending migrations (once; later calls wait for the first). Safe
   * from several nodes at once; every other method calls it first.
   */
  migrate(): Promise<void> {
    this.migrated ??= applyLogMigrations(this.pool, this.schema, this.schemaName).catch(
      (error: unknown) => {
        this.migrated = undefined;
        throw error;
      },
    );
    return this.migrated;
  }

  private table(name: string): string {
    return `${this.schema}.${name}`;
  }

  /** Runs `statement` (a named one prepared, unless `prepare` is off) once migrated. */
  private async query<Row extends object>(
    statement: string | NamedStatement,
    values: unknown[] = [],
  ): Promise<Row[]> {
    await this.migrate();
    const config =
      typeof statement === 'string'
        ? { text: statement, values }
        : this.prepare
          ? { ...statement, values }
          : { text: statement.text, values };
    return (await this.pool.query<Row>(config)).rows;
  }

  async createSession(record: SessionRecord): Promise<void> {
    const inserted = await this.query<{ id: string }>(
      named(`INSERT INTO ${this.table('parley_server_sessions')} (id, owner, created_at)
       VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id`),
      [record.id, record.owner, record.createdAt],
    );
    if (inserted.length === 0)
      throw new InvalidInputError(`Session '${record.id}' exists already.`);
    this.heads.remember(record.id, { stored: 0, reserved: 0 });
  }

  async session(sessionId: string): Promise<SessionRecord | undefined> {
    const [row] = await this.query<SessionRow>(
      named(`SELECT id, position, owner, created_at FROM ${this.table('parley_server_sessions')}
       WHERE id = $1`),
      [sessionId],
    );
    return row === undefined
      ? undefined
      : { id: row.id, owner: row.owner, createdAt: row.created_at };
  }

  async listSessions(
    owner: string | null,
    options: { cursor?: string; limit: number },
  ): Promise<SessionPage> {
    const cursor = options.cursor;
    if (cursor !== undefined && !/^\d{1,15}$/.test(cursor)) {
      throw new InvalidInputError(`Bad cursor ${JSON.stringify(cursor)}.`);
    }
    const rows = await this.query<SessionRow>(
      `SELECT id, position, owner, created_at FROM ${this.table('parley_server_sessions')}
       WHERE ($1::text IS NULL OR owner = $1) AND ($2::bigint IS NULL OR position < $2)
       ORDER BY position DESC LIMIT $3`,
      [owner, cursor ?? null, options.limit + 1],
    );
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    return {
      sessions: page.map((row) => ({ id: row.id, owner: row.owner, createdAt: row.created_at })),
      next: rows.length > options.limit && last !== undefined ? last.position : null,
    };
  }

  async append(
    sessionId: string,
    events: readonly StoredEvent[],
    reservedThrough: number,
    options?: AppendOptions,
  ): Promise<void> {
    await this.appends.append(sessionId, events, reservedThrough, options);
    const top = events.reduce((highest, event) => Math.max(highest, event.seq), 0);
    this.heads.appended(sessionId, top, reservedThrough);
  }

  async events(sessionId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.query<EventRow>(
      named(`SELECT seq, type, data FROM ${this.table('parley_session_events')}
       WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
      [sessionId, after, limit],
    );
    return rows.map((row) => ({ seq: Number(row.seq), type: row.type, data: row.data }));
  }

  async lastSeq(sessionId: string): Promise<number> {
    const [row] = await this.query<{ last: string }>(
      named(`SELECT greatest(
         coalesce((SELECT max(seq) FROM ${this.table('parley_session_events')}
                   WHERE session_id = $1), 0),
         coalesce((SELECT reserved FROM ${this.table('parley_session_event_heads')}
                   WHERE session_id = $1), 0)) AS last`),
      [sessionId],
    );
    const last = Number(row?.last ?? 0);
    this.heads.remember(sessionId, { stored: last, reserved: last });
    return last;
  }

  knownLastSeq(sessionId: string): number | undefined {
    const head = this.heads.get(sessionId);
    return head === undefined ? undefined : Math.max(head.stored, head.reserved);
  }

  watch(sessionId: string, listener: (seq: number) => void): Promise<() => void> {
    return this.notices.watch(sessionId, listener);
  }

  async setWaiting(
    sessionId: string,
    approvals: readonly Approval[],
    version: number,
  ): Promise<void> {
    await this.appends.append(sessionId, [], undefined, { waiting: { approvals, version } });
  }

  async listWaiting(owner: string | null): Promise<Approval[]> {
    const rows = await this.query<WaitingRow>(
      `SELECT w.session_id, w.reply_id, w.deadline, w.tool_call
       FROM ${this.table('parley_waiting_calls')} w
       JOIN ${this.table('parley_server_sessions')} s ON s.id = w.session_id
       LEFT JOIN ${this.table('parley_waiting_versions')} v ON v.session_id = w.session_id
       WHERE ($1::text IS NULL OR s.owner = $1) AND (v.version IS NULL OR v.version = w.version)
       ORDER BY s.position, w.position`,
      [owner],
    );
    return rows.flatMap((row) => approvalOfRow(row) ?? []);
  }

  claimIdempotency(
    request: IdempotentRequest,
    now: number,
  ): Promise<IdempotentRequest | undefined> {
    return this.claims.claimIdempotency(request, now);
  }

  startIdempotency(request: IdempotentRequest): Promise<void> {
    return this.claims.startIdempotency(request);
  }

  renewIdempotency(request: IdempotentRequest): Promise<boolean> {
    return this.claims.renewIdempotency(request);
  }

  settleIdempotency(request: IdempotentRequest): Promise<void> {
    return this.claims.settleIdempotency(request);
  }

  releaseIdempotency(request: IdempotentRequest): Promise<void> {
    return this.claims.releaseIdempotency(request);
  }

  addKey(record: ApiKeyRecord): Promise<void> {
    return this.keys.addKey(record);
  }

  findKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.keys.findKey(id);
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return this.keys.listKeys();
  }

  revokeKey(id: string, at: string): Promise<boolean> {
    return this.keys.revokeKey(id, at);
  }

  /** Stops listening and, when the log made its pool, ends it. */
  async close(): Promise<void> {
    this.notices.close();
    if (this.ownsPool) await this.pool.end();
  }
}
