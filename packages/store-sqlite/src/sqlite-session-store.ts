import type {
  AgentState,
  AuditRecord,
  AuditRecordRow,
  SaveOptions,
  SessionStore,
  SessionWrite,
  StoredSession,
} from '@parley/core';
import {
  SessionCache,
  StaleSessionError,
  decodeSessionRows,
  fromAuditRecordRow,
  parseAuditRecord,
  planSessionWrite,
  storedLease,
  toAuditRecordRow,
} from '@parley/core';
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { applyMigrations } from './migrations.js';

/**
 * Options of `SqliteSessionStore`. `path`: the database file (created if
 * missing), or `':memory:'` for a private in-memory database. `synchronous`:
 * `'FULL'` (default) makes every committed save survive power loss, except
 * saves marked `relaxed` (the in-between steps of a reply), which are made
 * durable by the next save that is not; `'NORMAL'` is faster in WAL mode
 * and may lose the last saves (never corrupt the file) on power loss,
 * though not on a process crash. `cacheBytes`: the bound of the store's
 * session cache (see `SessionCache`; default 64 MiB, 0 for none).
 */
export type SqliteSessionStoreOptions = {
  path: string;
  synchronous?: 'FULL' | 'NORMAL';
  cacheBytes?: number;
};

type HeadRow = {
  version: number;
  state: unknown;
  message_count: number | null;
  lease_until: string | null;
};
/** A message row as read: `[position, text, digest]` (array row mode: no object per row). */
type MessageRowRead = unknown[];
type HeadWrite = {
  id: string;
  state: string;
  updatedAt: string;
  expectedVersion: number;
  deadline: string | null;
  leaseUntil: string | null;
  messageCount: number;
};
type MessageWrite = {
  sessionId: string;
  position: number;
  version: number;
  digest: string;
  message: string;
};
type LeaseWrite = { id: string; version: number; leaseUntil: string };
type Read = { head: HeadRow | undefined; since: number; rows: MessageRowRead[] };

const AUDIT_COLUMNS =
  'session_id, reply_id, tool_call_id, tool_name, decision, input_digest, approver, at, detail';

/**
 * A durable `SessionStore` in one SQLite file (better-sqlite3), for a single
 * machine: a CLI, a desktop app, one server process. WAL mode, so readers do
 * not block the writer; the schema is migrated when the store opens. A
 * session is a head row (the state without its messages, its version,
 * deadline and lease) and one row per message. A save is one IMMEDIATE
 * transaction: a version-checked write of the head, the message rows that
 * are new or changed, and the save's audit records. The store keeps the
 * sessions it served in a bounded cache, so a load checks the stored
 * version and reads only rows written since. Several processes may share
 * the file; the version check keeps them honest.
 *
 * @example
 * const store = new SqliteSessionStore({ path: '.parley/sessions.sqlite' });
 * const version = await store.save(state.sessionId, state, 0);
 */
export class SqliteSessionStore implements SessionStore {
  private readonly database: Database.Database;
  private readonly cache: SessionCache;
  private readonly selectHead: Statement<[string], HeadRow>;
  private readonly selectRows: Statement<[string, number], MessageRowRead>;
  private readonly selectVersion: Statement<[string], { version: number }>;
  private readonly insertSession: Statement<[HeadWrite]>;
  private readonly updateSession: Statement<[HeadWrite]>;
  private readonly upsertMessage: Statement<[MessageWrite]>;
  private readonly trimMessages: Statement<[string, number]>;
  private readonly insertAudit: Statement<[AuditRecordRow]>;
  private readonly selectAudit: Statement<[string], AuditRecordRow>;
  private readonly selectDue: Statement<[string, number], { id: string }>;
  private readonly updateLease: Statement<[LeaseWrite]>;
  /** Whether relaxed saves switch `synchronous` (only FULL has something to relax). */
  private readonly canRelax: boolean;
  private relaxedNow = false;
  private readonly write: (head: HeadWrite, plan: SessionWrite, records: AuditRecordRow[]) => void;
  private readonly read: (sessionId: string, since: number) => Read;

  constructor(options: SqliteSessionStoreOptions) {
    this.cache = new SessionCache(options.cacheBytes);
    const database = new Database(options.path);
    try {
      database.pragma('journal_mode = WAL');
      database.pragma(`synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
      applyMigrations(database);
    } catch (error) {
      database.close();
      throw error;
    }
    this.database = database;
    this.selectHead = database.prepare(
      'SELECT version, state, message_count, lease_until FROM sessions WHERE id = ?',
    );
    this.selectRows = database
      .prepare<[string, number], MessageRowRead>(
        `SELECT position, message, digest FROM session_messages
         WHERE session_id = ? AND written_version > ?`,
      )
      .raw();
    this.selectVersion = database.prepare('SELECT version FROM sessions WHERE id = ?');
    this.insertSession = database.prepare(
      `INSERT INTO sessions (id, version, state, updated_at, deadline, lease_until, message_count)
       VALUES (@id, 1, @state, @updatedAt, @deadline, @leaseUntil, @messageCount)
       ON CONFLICT (id) DO NOTHING`,
    );
    this.updateSession = database.prepare(
      `UPDATE sessions SET state = @state, version = version + 1, updated_at = @updatedAt,
       deadline = @deadline, lease_until = @leaseUntil, message_count = @messageCount
       WHERE id = @id AND version = @expectedVersion`,
    );
    this.upsertMessage = database.prepare(
      `INSERT INTO session_messages (session_id, position, written_version, digest, message)
       VALUES (@sessionId, @position, @version, @digest, @message)
       ON CONFLICT (session_id, position) DO UPDATE SET written_version = excluded.written_version,
         digest = excluded.digest, message = excluded.message`,
    );
    this.trimMessages = database.prepare(
      'DELETE FROM session_messages WHERE session_id = ? AND position >= ?',
    );
    this.insertAudit = database.prepare(
      `INSERT INTO audit (${AUDIT_COLUMNS}) VALUES (@session_id, @reply_id, @tool_call_id,
       @tool_name, @decision, @input_digest, @approver, @at, @detail)`,
    );
    this.selectAudit = database.prepare(
      `SELECT ${AUDIT_COLUMNS} FROM audit WHERE session_id = ? ORDER BY seq`,
    );
    this.selectDue = database.prepare(
      `SELECT id FROM sessions WHERE deadline IS NOT NULL AND deadline <= ?
       ORDER BY deadline, id LIMIT ?`,
    );
    this.updateLease = database.prepare(
      'UPDATE sessions SET lease_until = @leaseUntil WHERE id = @id AND version = @version',
    );
    this.canRelax = options.synchronous !== 'NORMAL';
    const write = database.transaction(
      (head: HeadWrite, plan: SessionWrite, records: AuditRecordRow[]) =>
        this.writeInTransaction(head, plan, records),
    );
    this.write = (...args) => write.immediate(...args);
    // One read transaction: the head and the rows come from the same snapshot.
    const readRows = database.transaction((sessionId: string, since: number): Read => {
      const head = this.selectHead.get(sessionId);
      if (head === undefined || head.message_count === null) return { head, since: 0, rows: [] };
      const from = head.version >= since ? since : 0;
      const rows = head.version === from ? [] : this.selectRows.all(sessionId, from);
      return { head, since: from, rows };
    });
    // The head alone is one statement, a snapshot of its own: when it says
    // no row is to be read (no session, a whole state, or the version the
    // cache holds), no transaction is begun and committed around it.
    this.read = (sessionId, since) => {
      const head = this.selectHead.get(sessionId);
      if (head === undefined || head.message_count === null) return { head, since: 0, rows: [] };
      if (head.version === since) return { head, since, rows: [] };
      return readRows(sessionId, since);
    };
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const base = this.cache.get(sessionId);
    const { head, since, rows } = this.read(sessionId, base?.version ?? 0);
    if (head === undefined) return undefined;
    const { session, entry } = decodeSessionRows(
      sessionId,
      {
        version: head.version,
        head: head.state,
        messageCount: head.message_count,
        leaseUntil: head.lease_until,
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
    const head: HeadWrite = {
      id: sessionId,
      state: plan.head,
      updatedAt: new Date().toISOString(),
      expectedVersion,
      deadline: plan.deadline,
      leaseUntil: plan.leaseUntil,
      messageCount: plan.messageCount,
    };
    this.setRelaxed(options.relaxed === true);
    // One statement is its own transaction: a save that writes only the head needs no BEGIN/COMMIT.
    if (records.length === 0 && plan.rows.length === 0 && !plan.trim) {
      this.writeInTransaction(head, plan, records);
    } else {
      this.write(head, plan, records);
    }
    this.cache.set(sessionId, plan.entry);
    return expectedVersion + 1;
  }

  async listDue(now: string, limit = 100): Promise<string[]> {
    const at = new Date(now).toISOString();
    return this.selectDue.all(at, Math.max(0, Math.floor(limit))).map((row) => row.id);
  }

  async renewLease(sessionId: string, version: number, leaseUntil: string): Promise<boolean> {
    const lease = storedLease(leaseUntil);
    return this.updateLease.run({ id: sessionId, version, leaseUntil: lease }).changes === 1;
  }

  async listAudit(sessionId: string): Promise<AuditRecord[]> {
    return this.selectAudit.all(sessionId).map((row) => fromAuditRecordRow(row, sessionId));
  }

  /** Closes the database file. The store cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.database.open) this.database.close();
  }

  /**
   * `synchronous` is per connection and applies to the commits that follow,
   * so a relaxed save switches to NORMAL (no fsync of its commit) and the
   * next strict one back to FULL, whose fsync then covers both. (Not a
   * prepared statement: SQLite applies this pragma when compiling it.)
   */
  private setRelaxed(relaxed: boolean): void {
    if (!this.canRelax || relaxed === this.relaxedNow) return;
    this.database.pragma(`synchronous = ${relaxed ? 'NORMAL' : 'FULL'}`);
    this.relaxedNow = relaxed;
  }

  private writeInTransaction(head: HeadWrite, plan: SessionWrite, records: AuditRecordRow[]): void {
    const { id: sessionId, expectedVersion } = head;
    const changed =
      expectedVersion === 0 ? this.insertSession.run(head) : this.updateSession.run(head);
    if (changed.changes !== 1) {
      const actual = this.selectVersion.get(sessionId)?.version;
      throw new StaleSessionError(sessionId, expectedVersion, actual);
    }
    const version = expectedVersion + 1;
    if (plan.trim) this.trimMessages.run(sessionId, plan.messageCount);
    for (const { position, text, digest } of plan.rows) {
      this.upsertMessage.run({ sessionId, position, version, digest, message: text });
    }
    for (const record of records) this.insertAudit.run(record);
  }
}
