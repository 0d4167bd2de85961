import { StaleSessionError } from '../errors/index.js';
import type { AgentState } from '../state/index.js';
import type { AuditRecord } from './audit-record.js';
import { parseAuditRecord } from './audit-record.js';
import type { SaveOptions, SessionStore, StoredSession } from './session-store.js';
import { parkedDeadline, storedLease } from './session-store.js';
import { decodeStoredSession } from './stored-state.js';
import { serializeAgentState } from '../state/index.js';

/**
 * The data behind an `InMemorySessionStore`: each session's state as JSON
 * text with its version (with the parked reply's deadline, for `listDue`,
 * and the lease of a running reply), and each session's audit records as
 * JSON text, in order. Give the same tables to two stores and they see the
 * same sessions, like two processes over one database; tests also use them
 * to reach behind a store's back.
 */
export type InMemorySessionTables = {
  sessions: Map<
    string,
    { state: string; version: number; deadline?: string | null; leaseUntil?: string | null }
  >;
  audit: Map<string, string[]>;
};

/** Options of `InMemorySessionStore`. */
export type InMemorySessionStoreOptions = { tables?: InMemorySessionTables };

/**
 * A `SessionStore` in process memory, for tests and single-process demos.
 * It keeps JSON text, so what comes back is exactly what a durable store
 * would give: a JSON round trip of what was saved.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly tables: InMemorySessionTables;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.tables = options.tables ?? { sessions: new Map(), audit: new Map() };
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const stored = this.tables.sessions.get(sessionId);
    if (stored === undefined) return undefined;
    return decodeStoredSession(sessionId, stored);
  }

  async save(
    sessionId: string,
    state: AgentState,
    expectedVersion: number,
    options: SaveOptions = {},
  ): Promise<number> {
    // Everything that can throw runs before the first write: all or nothing.
    const records = (options.audit ?? []).map((record) =>
      JSON.stringify(parseAuditRecord(record, sessionId)),
    );
    const text = serializeAgentState(state);
    const leaseUntil = storedLease(options.leaseUntil);
    const current = this.tables.sessions.get(sessionId)?.version ?? 0;
    if (current !== expectedVersion) {
      throw new StaleSessionError(sessionId, expectedVersion, current === 0 ? undefined : current);
    }
    const version = current + 1;
    this.tables.sessions.set(sessionId, {
      state: text,
      version,
      deadline: parkedDeadline(state),
      leaseUntil,
    });
    if (records.length > 0) {
      this.tables.audit.set(sessionId, [...(this.tables.audit.get(sessionId) ?? []), ...records]);
    }
    return version;
  }

  async listDue(now: string, limit = 100): Promise<string[]> {
    const due: { id: string; deadline: string }[] = [];
    for (const [id, { deadline }] of this.tables.sessions) {
      if (typeof deadline === 'string' && deadline <= now) due.push({ id, deadline });
    }
    due.sort((a, b) => (a.deadline < b.deadline ? -1 : a.deadline > b.deadline ? 1 : 0));
    return due.slice(0, Math.max(0, limit)).map(({ id }) => id);
  }

  async renewLease(sessionId: string, version: number, leaseUntil: string): Promise<boolean> {
    const lease = storedLease(leaseUntil);
    const stored = this.tables.sessions.get(sessionId);
    if (stored?.version !== version) return false;
    stored.leaseUntil = lease;
    return true;
  }

  async listAudit(sessionId: string): Promise<AuditRecord[]> {
    const records = this.tables.audit.get(sessionId) ?? [];
    return records.map((text): AuditRecord => parseAuditRecord(JSON.parse(text), sessionId));
  }
}
