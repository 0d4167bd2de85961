/** A fresh random identifier (UUID v4 from the platform's Web Crypto). */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}

let lastMillis = -1;
let lastIso = '';

/** The current time as an ISO-8601 string (formatted once per millisecond: events come in bursts). */
export function nowIso(): string {
  const millis = Date.now();
  if (millis !== lastMillis) {
    lastMillis = millis;
    lastIso = new Date(millis).toISOString();
  }
  return lastIso;
}
