// The floor of the history axis (bench/park-resume-history.ts): one row
// holding the JSON of a session's message list, read, parsed, appended to
// and written whole, on SQLite or Postgres.
import Database from 'better-sqlite3';
import pg from 'pg';

const createdAt = '2026-12-03T10:00:00.000Z';

/** The floor: the message list as one JSON text, read, parsed, appended and written whole. */
export interface HistoryFloor {
  seed(id: string, text: string): Promise<void>;
  read(id: string): Promise<string>;
  write(id: string, text: string): Promise<void>;
}

export class SqliteHistoryFloor implements HistoryFloor {
  private readonly database: Database.Database;
  constructor(path: string, synchronous: 'FULL' | 'NORMAL') {
    this.database = new Database(path);
    this.database.pragma('journal_mode = WAL');
    this.database.pragma(`synchronous = ${synchronous}`);
    this.database.exec('CREATE TABLE floor (id TEXT PRIMARY KEY, messages TEXT NOT NULL)');
  }
  async seed(id: string, text: string): Promise<void> {
    this.database.prepare('INSERT INTO floor (id, messages) VALUES (?, ?)').run(id, text);
  }
  async read(id: string): Promise<string> {
    const row = this.database
      .prepare<[string], { messages: string }>('SELECT messages FROM floor WHERE id = ?')
      .get(id);
    if (row === undefined) throw new Error('missing');
    return row.messages;
  }
  async write(id: string, text: string): Promise<void> {
    this.database.prepare('UPDATE floor SET messages = ? WHERE id = ?').run(text, id);
  }
  close(): void {
    this.database.close();
  }
}

export class PgHistoryFloor implements HistoryFloor {
  constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
  ) {}
  static async open(pool: pg.Pool, schema: string): Promise<PgHistoryFloor> {
    const table = `${pg.escapeIdentifier(schema)}.history_floor`;
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, messages text NOT NULL)`);
    return new PgHistoryFloor(pool, table);
  }
  async seed(id: string, text: string): Promise<void> {
    await this.pool.query(`INSERT INTO ${this.table} (id, messages) VALUES ($1, $2)`, [id, text]);
  }
  async read(id: string): Promise<string> {
    const result = await this.pool.query<{ messages: string }>(
      `SELECT messages FROM ${this.table} WHERE id = $1`,
      [id],
    );
    const text = result.rows[0]?.messages;
    if (text === undefined) throw new Error('missing');
    return text;
  }
  async write(id: string, text: string): Promise<void> {
    await this.pool.query(`UPDATE ${this.table} SET messages = $1 WHERE id = $2`, [text, id]);
  }
}

/** Parsed JSON as a list (the floor trusts its own rows, as a hand-made loop would). */
export function parseList(text: string): unknown[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error('not a list');
  return value;
}

/** The floor's round trip: the pause appends the user message and the call; the resume the result and the answer. */
export async function floorRoundTrip(floor: HistoryFloor, id: string, turn: number): Promise<void> {
  const paused = parseList(await floor.read(id));
  paused.push(
    { id: `fu${turn}`, role: 'user', content: 'Write the note', createdAt },
    {
      id: `fa${turn}`,
      role: 'assistant',
      createdAt,
      content: [{ type: 'tool_call', id: `fc${turn}`, name: 'write_file', input: '{}' }],
    },
  );
  await floor.write(id, JSON.stringify(paused));
  const resumed = parseList(await floor.read(id));
  resumed.push({ type: 'tool_result', id: `fc${turn}`, output: 'ok', state: 'success' });
  resumed.push({ type: 'text', text: 'done' });
  await floor.write(id, JSON.stringify(resumed));
}
