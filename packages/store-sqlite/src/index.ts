/**
 * @parley/store-sqlite: a durable `SessionStore` in one SQLite file.
 */
export type { SqliteSessionStoreOptions } from './sqlite-session-store.js';
export { SqliteSessionStore } from './sqlite-session-store.js';
export type { SqliteMigration } from './migrations.js';
export { SQLITE_MIGRATIONS } from './migrations.js';
