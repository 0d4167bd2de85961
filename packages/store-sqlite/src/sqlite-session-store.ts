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
 * though not on a process crash.
 */
export type SqliteSessionStoreOptions = {
  path: string;
  synchronous?: 'FULL' | 'NORMAL';
};

type SessionRow = { version: number; state: unknown; lease_until: string | null };
type SessionWrite = {
  id: string;
  state: string;
  updatedAt: string;
  expectedVersion: number;
  deadline: string | null;
  leaseUntil: string | null;
};
type LeaseWrite = { id: string; version: number; leaseUntil: string };

const AUDIT_COLUMNS =
  'session_id, reply_id, tool_call_id, tool_name, decision, input_digest, approver, at, detail';

/**
 * A durable `SessionStore` in one SQLite file (better-sqlite3), for a single
 * machine: a CLI, a desktop app, one server process. WAL mode, so readers do
 * not block the writer; the schema is migrated when the store opens. A save
 * is one IMMEDIATE transaction: a version-checked write of the session row
 * plus the save's audit records. Several processes may share the file; the
 * version check keeps them honest.
 *
 * @example
 * const store = new SqliteSessionStore({ path: '.parley/sessions.sqlite' });
 * const version = await store.save(state.sessionId, state, 0);
 */
export class SqliteSessionStore implements SessionStore {
  private readonly database: Database.Database;
  private readonly selectSession: Statement<[string], SessionRow>;
  private readonly selectVersion: Statement<[string], { version: number }>;
  private readonly insertSession: Statement<[SessionWrite]>;
  private readonly updateSession: Statement<[SessionWrite]>;
  private readonly insertAudit: Statement<[AuditRecordRow]>;
  private readonly selectAudit: Statement<[string], AuditRecordRow>;
  private readonly selectDue: Statement<[string, number], { id: string }>;
  private readonly updateLease: Statement<[LeaseWrite]>;
  /** Whether relaxed saves switch `synchronous` (only FULL has something to relax). */
  private readonly canRelax: boolean;
  private relaxedNow = false;
  private readonly write: (write: SessionWrite, records: AuditRecordRow[]) => number;

  constructor(options: SqliteSessionStoreOptions) {
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
    this.selectSession = database.prepare(
      'SELECT version, state, lease_until FROM sessions WHERE id = ?',
    );
    this.selectVersion = database.prepare('SELECT version FROM sessions WHERE id = ?');
    this.insertSession = database.prepare(
      `INSERT INTO sessions (id, version, state, updated_at, deadline, lease_until)
       VALUES (@id, 1, @state, @updatedAt, @deadline, @leaseUntil) ON CONFLICT (id) DO NOTHING`,
    );
    this.updateSession = database.prepare(
      `UPDATE sessions SET state = @state, version = version + 1, updated_at = @updatedAt,
       deadline = @deadline, lease_until = @leaseUntil WHERE id = @id AND version = @expectedVersion`,
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
    const transaction = database.transaction((write: SessionWrite, records: AuditRecordRow[]) =>
      this.writeInTransaction(write, records),
    );
    this.write = (...args) => transaction.immediate(...args);
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const row = this.selectSession.get(sessionId);
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
    const write: SessionWrite = {
      id: sessionId,
      state: serializeAgentState(state),
      updatedAt: new Date().toISOString(),
      expectedVersion,
      deadline: parkedDeadline(state),
      leaseUntil: storedLease(options.leaseUntil),
    };
    this.setRelaxed(options.relaxed === true);
    // One statement is its own transaction: a save without records needs no BEGIN/COMMIT.
    return records.length === 0
      ? this.writeInTransaction(write, records)
      : this.write(write, records);
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

  private writeInTransaction(write: SessionWrite, records: AuditRecordRow[]): number {
    const { id: sessionId, expectedVersion } = write;
    const changed =
      expectedVersion === 0 ? this.insertSession.run(write) : this.updateSession.run(write);
    if (changed.changes !== 1) {
      const actual = this.selectVersion.get(sessionId)?.version;
      throw new StaleSessionError(sessionId, expectedVersion, actual);
    }
    for (const record of records) this.insertAudit.run(record);
    return expectedVersion + 1;
  }
}
