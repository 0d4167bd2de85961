/** A fresh random identifier (UUID v4 from the platform's Web Crypto). */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}

/** The current time as an ISO-8601 string. */
export function nowIso(): string {
  return new Date().toISOString();
}
