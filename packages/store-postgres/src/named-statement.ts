import { createHash } from 'node:crypto';

/** Names already made, by text; cleared when full (a name is only a hash of its text). */
const names = new Map<string, string>();
const NAMES = 1024;

/**
 * The name `pg` prepares `text` under, once per pooled connection: Postgres
 * parses and analyses it once there, and later runs send only the name and
 * parameters. Made from the text, so two texts never share one. For
 * statements whose text is one of a fixed few, never `SELECT *` (a column
 * added later would change the prepared result's shape).
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= NAMES) names.clear();
    name = `parley_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}
