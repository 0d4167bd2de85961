import { createHash } from 'node:crypto';

/** A statement `pg` prepares once per connection, under `name`. */
export type NamedStatement = { name: string; text: string };

/** Names already made, by text; cleared when full (a name is only a hash of its text). */
const names = new Map<string, string>();
const NAMES = 1024;

/**
 * `text` as a named statement: each pooled connection has Postgres parse
 * and analyse it once, and later runs send only the name and parameters.
 * The name is made from the text, so the same text gets the same name
 * everywhere and two texts never share one. For statements whose text is
 * one of a fixed few (a prepared statement lives as long as its
 * connection), and never `SELECT *`: a column added later would change
 * the prepared result's shape.
 */
export function named(text: string): NamedStatement {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= NAMES) names.clear();
    name = `parley_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    names.set(text, name);
  }
  return { name, text };
}
