import Database from 'better-sqlite3';
import { InvalidInputError } from '@parley/core';
import { EventNumberTakenError } from '../../errors.js';
import { EventHeads } from '../../events/event-heads.js';
import type { EventHead } from '../../events/event-heads.js';
import { GroupCommit } from './group-commit.js';
import { SqliteApiKeys } from './sqlite-api-keys.js';
import { SqliteIdempotency } from './sqlite-idempotency.js';
import { isWaitingCall } from '../../waiting/session-summary.js';
import type {
  AppendOptions,
  IdempotentRequest,
  Approval,
  ApiKeyRecord,
  ApiKeyStore,
  SessionLog,
  SessionPage,
  SessionRecord,
  StoredEvent,
} from '../session-log.js';

/**
 * Options of `new SqliteServerLog(...)`: `path` of the SQLite file (the
 * session store's own file is the usual choice: the tables sit beside the
 * session tables), or `':memory:'`. `synchronous`: `'FULL'` (default) syncs
 * every commit to disk, so an event a client saw survives a power cut;
 * `'NORMAL'` (WAL) survives a crash of the process but may lose the last
 * commits to a power cut, for fewer syncs.
 */
export type SqliteServerLogOptions = { path: string; synchronous?: 'FULL' | 'NORMAL' };

/** The schema, in order; `parley_server_schema` holds how many have run. */
const migrations: readonly string[] = [
  `CREATE TABLE parley_server_sessions (
     id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL);
   CREATE INDEX parley_server_sessions_owner ON parley_server_sessions (owner);
   CREATE TABLE parley_session_events (
     session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
     PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
   CREATE TABLE parley_session_event_heads (
     session_id TEXT PRIMARY KEY, reserved INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TABLE parley_api_keys (
     id TEXT PRIMARY KEY, principal TEXT NOT NULL, roles TEXT NOT NULL,
     secret_hash TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);`,
  `CREATE TABLE parley_waiting_calls (
     session_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, position INTEGER NOT NULL,
     reply_id TEXT NOT NULL, deadline TEXT, tool_call TEXT NOT NULL,
     PRIMARY KEY (session_id, tool_call_id)) WITHOUT ROWID;`,
  `CREATE TABLE parley_idempotency (
     principal TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
     after INTEGER, last_seq INTEGER, response TEXT,
     PRIMARY KEY (principal, key)) WITHOUT ROWID;`,
  // Who holds each claim and until when (epoch ms). A claim from before had
  // no holder that renews it; one process writes this file, so it is over.
  `ALTER TABLE parley_idempotency ADD COLUMN claim_id TEXT NOT NULL DEFAULT '';
   ALTER TABLE parley_idempotency ADD COLUMN held_until INTEGER NOT NULL DEFAULT 0;`,
  // Whether the reply of a settled claim was cut off by its process dying.
  'ALTER TABLE parley_idempotency ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;',
  // The HTTP status of a settled claim's response: a failed request keeps its error.
  'ALTER TABLE parley_idempotency ADD COLUMN status INTEGER NOT NULL DEFAULT 200;',
  // Events in a rowid table, so the appends of a commit land together at its
  // end rather than each in its session's page of the clustered key (fewer
  // pages written); (session_id, seq) stays unique through an index.
  `CREATE TABLE parley_session_events_by_rowid (
     session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
   INSERT INTO parley_session_events_by_rowid (session_id, seq, type, data)
     SELECT session_id, seq, type, data FROM parley_session_events ORDER BY session_id, seq;
   DROP TABLE parley_session_events;
   ALTER TABLE parley_session_events_by_rowid RENAME TO parley_session_events;
   CREATE UNIQUE INDEX parley_session_events_seq ON parley_session_events (session_id, seq);`,
  // The version of the stored state each session's waiting calls were read
  // from: a refresh from an older state is ignored.
  `CREATE TABLE parley_waiting_versions (
     session_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;`,
];

type SessionRow = { rowid: number; id: string; owner: string; created_at: string };
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
 * The server's session records, event log and API keys in SQLite, in tables
 * of their own (prefixed `parley_`) that can share the session store's file.
 * The server batches token deltas, so a streamed reply costs a commit per
 * step, not per token; and the appends made in one turn of the event loop
 * (by replies running side by side) are committed together, in one
 * transaction, on the next.
 */
export class SqliteServerLog implements SessionLog, ApiKeyStore {
  private readonly database: Database.Database;
  /** The statements of the calls made on every request or reply, prepared once. */
  private readonly statements: {
    session: Database.Statement<[string], SessionRow>;
    events: Database.Statement<[string, number, number], StoredEvent>;
    lastSeq: Database.Statement<[string, string], EventHead>;
    waitingVersion: Database.Statement<[string, number]>;
    clearWaiting: Database.Statement<[string]>;
    insertWaiting: Database.Statement<[string, string, number, string, string | null, string]>;
    insertEvent: Database.Statement<[string, number, string, string]>;
    reserve: Database.Statement<[string, number]>;
    lowerReservation: Database.Statement<[number, string, number]>;
  };
  /** Appends and index updates, committed a turn of the event loop at a time. */
  private readonly writes: GroupCommit;
  /** The idempotency claims and the API keys, in tables of their own. */
  private readonly claims: SqliteIdempotency;
  private readonly keys: SqliteApiKeys;
  /** Sessions' heads read or appended lately: one process writes the file, so they stay true. */
  private readonly heads = new EventHeads();

  constructor(options: SqliteServerLogOptions) {
    this.database = new Database(options.path);
    this.database.pragma('journal_mode = WAL');
    this.database.pragma('busy_timeout = 5000');
    this.database.pragma(`synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    this.migrate();
    this.writes = new GroupCommit(this.database);
    this.claims = new SqliteIdempotency(this.database);
    this.keys = new SqliteApiKeys(this.database);
    this.statements = {
      session: this.database.prepare(
        'SELECT rowid, id, owner, created_at FROM parley_server_sessions WHERE id = ?',
      ),
      events: this.database.prepare(
        `SELECT seq, type, data FROM parley_session_events
         WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      lastSeq: this.database.prepare(
        `SELECT
           coalesce((SELECT max(seq) FROM parley_session_events WHERE session_id = ?), 0) AS stored,
           coalesce((SELECT reserved FROM parley_session_event_heads WHERE session_id = ?), 0)
             AS reserved`,
      ),
      // Changes a row only for a version at least the one recorded.
      waitingVersion: this.database.prepare(
        `INSERT INTO parley_waiting_versions (session_id, version) VALUES (?, ?)
         ON CONFLICT (session_id) DO UPDATE SET version = excluded.version
         WHERE excluded.version >= version`,
      ),
      clearWaiting: this.database.prepare('DELETE FROM parley_waiting_calls WHERE session_id = ?'),
      insertWaiting: this.database.prepare(
        `INSERT INTO parley_waiting_calls
         (session_id, tool_call_id, position, reply_id, deadline, tool_call) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      insertEvent: this.database.prepare(
        'INSERT INTO parley_session_events (session_id, seq, type, data) VALUES (?, ?, ?, ?)',
      ),
      // Rewrites the row only when the reservation changes.
      reserve: this.database.prepare(
        `INSERT INTO parley_session_event_heads (session_id, reserved) VALUES (?, ?)
         ON CONFLICT (session_id) DO UPDATE SET reserved = excluded.reserved
         WHERE reserved <> excluded.reserved`,
      ),
      lowerReservation: this.database.prepare(
        `UPDATE parley_session_event_heads SET reserved = ? WHERE session_id = ? AND reserved > ?`,
      ),
    };
  }

  private migrate(): void {
    this.database.exec(
      'CREATE TABLE IF NOT EXISTS parley_server_schema (version INTEGER NOT NULL)',
    );
    const run = this.database.transaction(() => {
      const row = this.database
        .prepare<[], { version: number }>('SELECT version FROM parley_server_schema')
        .get();
      const done = row?.version ?? 0;
      for (const sql of migrations.slice(done)) this.database.exec(sql);
      if (row === undefined) {
        this.database
          .prepare('INSERT INTO parley_server_schema (version) VALUES (?)')
          .run(migrations.length);
      } else {
        this.database.prepare('UPDATE parley_server_schema SET version = ?').run(migrations.length);
      }
    });
    run.immediate();
  }

  createSession(record: SessionRecord): Promise<void> {
    const inserted = this.database
      .prepare(
        'INSERT INTO parley_server_sessions (id, owner, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(record.id, record.owner, record.createdAt);
    if (inserted.changes === 0) {
      return Promise.reject(new InvalidInputError(`Session '${record.id}' exists already.`));
    }
    return Promise.resolve();
  }

  session(sessionId: string): Promise<SessionRecord | undefined> {
    const row = this.statements.session.get(sessionId);
    return Promise.resolve(
      row === undefined ? undefined : { id: row.id, owner: row.owner, createdAt: row.created_at },
    );
  }

  listSessions(
    owner: string | null,
    options: { cursor?: string; limit: number },
  ): Promise<SessionPage> {
    const before = options.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(options.cursor);
    if (!Number.isSafeInteger(before)) {
      return Promise.reject(new InvalidInputError(`Bad cursor ${JSON.stringify(options.cursor)}.`));
    }
    const rows = this.database
      .prepare<[string | null, string | null, number, number], SessionRow>(
        `SELECT rowid, id, owner, created_at FROM parley_server_sessions
         WHERE (? IS NULL OR owner = ?) AND rowid < ? ORDER BY rowid DESC LIMIT ?`,
      )
      .all(owner, owner, before, options.limit + 1);
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    return Promise.resolve({
      sessions: page.map((row) => ({ id: row.id, owner: row.owner, createdAt: row.created_at })),
      next: rows.length > options.limit && last !== undefined ? String(last.rowid) : null,
    });
  }

  append(
    sessionId: string,
    events: readonly StoredEvent[],
    reservedThrough: number,
    options: AppendOptions = {},
  ): Promise<void> {
    const top = events.reduce((highest, event) => Math.max(highest, event.seq), 0);
    const { after, waiting } = options;
    const written = this.writes.run(() => {
      if (after !== undefined) {
        const head = this.statements.lastSeq.get(sessionId, sessionId);
        if (head !== undefined && Math.max(head.stored, head.reserved) > after) {
          throw new EventNumberTakenError(sessionId);
        }
      }
      for (const event of events) {
        try {
          this.statements.insertEvent.run(sessionId, event.seq, event.type, event.data);
        } catch (error) {
          if (
            error instanceof Database.SqliteError &&
            (error.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
              error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
          ) {
            throw new EventNumberTakenError(sessionId);
          }
          throw error;
        }
      }
      // Numbers up to the events' own are held by their rows: a reservation
      // row is written only to reach past them, or to give numbers back.
      if (reservedThrough > top) this.statements.reserve.run(sessionId, reservedThrough);
      else this.statements.lowerReservation.run(reservedThrough, sessionId, reservedThrough);
      if (waiting !== undefined) this.writeWaiting(sessionId, waiting.approvals, waiting.version);
    });
    return written.then(() => this.heads.appended(sessionId, top, reservedThrough));
  }

  events(sessionId: string, after: number, limit: number): Promise<StoredEvent[]> {
    return Promise.resolve(this.statements.events.all(sessionId, after, limit));
  }

  lastSeq(sessionId: string): Promise<number> {
    let head = this.heads.get(sessionId);
    if (head === undefined) {
      head = this.statements.lastSeq.get(sessionId, sessionId) ?? { stored: 0, reserved: 0 };
      this.heads.remember(sessionId, head);
    }
    return Promise.resolve(Math.max(head.stored, head.reserved));
  }

  setWaiting(sessionId: string, approvals: readonly Approval[], version: number): Promise<void> {
    return this.writes.run(() => this.writeWaiting(sessionId, approvals, version));
  }

  /** `setWaiting`'s statements, inside a transaction of the caller's. */
  private writeWaiting(sessionId: string, approvals: readonly Approval[], version: number): void {
    if (this.statements.waitingVersion.run(sessionId, version).changes === 0) return;
    this.statements.clearWaiting.run(sessionId);
    approvals.forEach((approval, position) =>
      this.statements.insertWaiting.run(
        sessionId,
        approval.toolCall.id,
        position,
        approval.replyId,
        approval.deadline,
        JSON.stringify(approval.toolCall),
      ),
    );
  }

  listWaiting(owner: string | null): Promise<Approval[]> {
    const rows = this.database
      .prepare<[string | null, string | null], WaitingRow>(
        `SELECT w.session_id, w.reply_id, w.deadline, w.tool_call
         FROM parley_waiting_calls w JOIN parley_server_sessions s ON s.id = w.session_id
         WHERE (? IS NULL OR s.owner = ?) ORDER BY s.rowid, w.position`,
      )
      .all(owner, owner);
    return Promise.resolve(rows.flatMap((row) => approvalOfRow(row) ?? []));
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

  /** Closes the database connection. */
  close(): void {
    this.writes.commit();
    this.database.close();
  }
}
