export type { SessionStore, StoredSession } from './session-store.js';
export { InMemorySessionStore } from './in-memory-session-store.js';
