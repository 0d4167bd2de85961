/**
 * @parley/store-postgres: a durable `SessionStore` in PostgreSQL, with
 * change notifications so several nodes can follow the same sessions.
 */
export type { PostgresSessionStoreOptions } from './postgres-session-store.js';
export { PostgresSessionStore } from './postgres-session-store.js';
export type { SessionChange, SessionSubscription } from './session-subscription.js';
export { formatChangePayload, parseChangePayload } from './session-subscription.js';
export type { PostgresMigration } from './migrations.js';
export { POSTGRES_MIGRATIONS } from './migrations.js';
