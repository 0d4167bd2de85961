/**
 * A session id short enough to read: its last eight characters. The
 * server's ids are time-ordered (UUIDv7), so sessions created together
 * share their first characters; the last ones are random.
 */
export function shortId(id: string): string {
  return id.slice(-8);
}
