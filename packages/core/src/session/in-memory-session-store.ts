import { StaleSessionError } from '../errors/index.js';
import type { AgentState } from '../state/index.js';
import type { AuditRecord } from './audit-record.js';
import { parseAuditRecord } from './audit-record.js';
import { decodeSessionRows } from './decode-session-rows.js';
import { planSessionWrite } from './message-rows.js';
import { SessionCache } from './session-cache.js';
import type { SaveOptions, SessionStore, StoredSession } from './session-store.js';
import { storedLease } from './session-store.js';

/**
 * A stored message row of an `InMemorySessionStore`: the message's JSON
 * text, its digest (see `messageDigest`) and the version that wrote it.
 */
export type InMemoryMessageRow = { text: string; digest: string; writtenVersion: number };

/**
 * The data behind an `InMemorySessionStore`, laid out as the durable
 * stores lay out their tables: each session's head row (`state` is the
 * JSON text of the state without its messages, `messageCount` how many
 * messages it has; a row whose `messageCount` is left out or `null` holds
 * the whole state in `state`, as rows did before message rows), with the
 * parked reply's deadline and a running reply's lease; each session's
 * message rows by position; each session's audit records as JSON text, in
 * order. Give the same tables to two stores and they see the same
 * sessions, like two processes over one database; tests also use them to
 * reach behind a store's back.
 */
export type InMemorySessionTables = {
  sessions: Map<
    string,
    {
      state: string;
      version: number;
      deadline?: string | null;
      leaseUntil?: string | null;
      messageCount?: number | null;
    }
  >;
  messages: Map<string, Map<number, InMemoryMessageRow>>;
  audit: Map<string, string[]>;
};

/** Empty tables for an `InMemorySessionStore` (to share between stores, or to look into). */
export function emptySessionTables(): InMemorySessionTables {
  return { sessions: new Map(), messages: new Map(), audit: new Map() };
}

/**
 * Options of `InMemorySessionStore`. `tables`: the data (shared between
 * stores to act as one database). `cacheBytes`: the bound of the store's
 * session cache (see `SessionCache`; default 64 MiB, 0 for none).
 */
export type InMemorySessionStoreOptions = { tables?: InMemorySessionTables; cacheBytes?: number };

/**
 * A `SessionStore` in process memory, for tests and single-process demos.
 * It keeps JSON text in the durable stores' layout, so what comes back is
 * exactly what a durable store would give, and it writes only the message
 * rows a save changed, as they do.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly tables: InMemorySessionTables;
  private readonly cache: SessionCache;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.tables = options.tables ?? emptySessionTables();
    this.cache = new SessionCache(options.cacheBytes);
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const stored = this.tables.sessions.get(sessionId);
    if (stored === undefined) return undefined;
    const base = this.cache.get(sessionId);
    const since = base !== undefined && base.version <= stored.version ? base.version : 0;
    const rows = [...(this.tables.messages.get(sessionId) ?? [])].flatMap(([position, row]) =>
      row.writtenVersion > since ? [[position, row.text, row.digest]] : [],
    );
    const { session, entry } = decodeSessionRows(
      sessionId,
      {
        version: stored.version,
        head: stored.state,
        messageCount: stored.messageCount ?? null,
        leaseUntil: stored.leaseUntil,
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
    // Everything that can throw runs before the first write: all or nothing.
    const records = (options.audit ?? []).map((record) =>
      JSON.stringify(parseAuditRecord(record, sessionId)),
    );
    const write = planSessionWrite(
      sessionId,
      state,
      expectedVersion,
      options,
      this.cache.get(sessionId),
    );
    const current = this.tables.sessions.get(sessionId)?.version ?? 0;
    if (current !== expectedVersion) {
      throw new StaleSessionError(sessionId, expectedVersion, current === 0 ? undefined : current);
    }
    const version = current + 1;
    this.tables.sessions.set(sessionId, {
      state: write.head,
      version,
      deadline: write.deadline,
      leaseUntil: write.leaseUntil,
      messageCount: write.messageCount,
    });
    const rows = this.tables.messages.get(sessionId) ?? new Map<number, InMemoryMessageRow>();
    if (write.trim) {
      for (const position of rows.keys()) if (position >= write.messageCount) rows.delete(position);
    }
    for (const { position, text, digest } of write.rows) {
      rows.set(position, { text, digest, writtenVersion: version });
    }
    this.tables.messages.set(sessionId, rows);
    if (records.length > 0) {
      this.tables.audit.set(sessionId, [...(this.tables.audit.get(sessionId) ?? []), ...records]);
    }
    this.cache.set(sessionId, write.entry);
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
