export type { SaveOptions, SessionStore, StoredSession } from './session-store.js';
export { parkedDeadline, storedLease } from './session-store.js';
export type {
  InMemoryMessageRow,
  InMemorySessionStoreOptions,
  InMemorySessionTables,
} from './in-memory-session-store.js';
export { InMemorySessionStore, emptySessionTables } from './in-memory-session-store.js';
export type { CachedSession } from './session-cache.js';
export {
  DEFAULT_SESSION_CACHE_BYTES,
  SessionCache,
  cachedBytes,
  cachedMessage,
  cachedText,
} from './session-cache.js';
export type { MessageRow, SessionWrite } from './message-rows.js';
export { planSessionWrite } from './message-rows.js';
export { messageDigest } from './stored-message.js';
export type { StoredSessionRows } from './decode-session-rows.js';
export { decodeSessionRows } from './decode-session-rows.js';
export type { AuditDecision, AuditRecord } from './audit-record.js';
export {
  AUDIT_DECISIONS,
  digestToolInput,
  isAuditDecision,
  parseAuditRecord,
} from './audit-record.js';
export type { AuditRecordRow } from './audit-record-row.js';
export { fromAuditRecordRow, toAuditRecordRow } from './audit-record-row.js';
export { decodeStoredSession, decodeStoredState } from './stored-state.js';
export type { StoreMigration } from './migrations.js';
export { pendingMigrations } from './migrations.js';
export {
  InvalidAuditRecordError,
  StoreCapabilityError,
  StoreMigrationError,
} from './store-errors.js';
