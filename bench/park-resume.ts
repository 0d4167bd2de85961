// Park/resume: the cost of one human-in-the-loop round trip on a stored
// session, against the floor of doing the same persistence by hand.
//
// Parley: a user message arrives; the model (ScriptedModel) calls
// write_file({"path":"notes/a.txt","content":"hello"}), which needs
// approval; the reply parks and is saved. A fresh agent (Sessions builds one
// per call) loads the session and resumes it with the approval; the tool
// runs and the model answers "done"; the state is saved.
// Floor: a plain better-sqlite3 table (WAL, same synchronous mode): the
// JSON of a comparable message list written at the pause; read back,
// parsed, the result and final message appended, written again.
// Both run in this process, interleaved; results are ratios to the floor.
// Parley runs with both write schedules: 'steps' (default; five writes per
// round trip, three strict) and 'boundaries' (three writes, all strict).
// Two more lines split Parley's NORMAL round trip in two: the runtime alone
// (the same round trip on InMemorySessionStore, no database) and the
// SQLite store alone (the saves one round trip made, with their audit
// records, replayed on fresh session ids). The fsync budget lines say how
// much of each FULL target is left once Parley's fsynced writes are paid,
// one fsync estimated from the floor's own FULL − NORMAL difference.
//
//   npx tsx bench/park-resume.ts            (PARLEY_PG_URL set: Postgres too)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SESSION_CACHE_BYTES, InMemorySessionStore } from '@parley/core';
import type {
  AgentState,
  PersistSchedule,
  SaveOptions,
  SessionStore,
  UserConfirmResultEvent,
} from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { PostgresSessionStore } from '@parley/store-postgres';
import Database from 'better-sqlite3';
import pg from 'pg';
import { historyRuns } from './park-resume-history.js';
import { INPUT, ms, park, quantile, ratio, resume, sessionsOn } from './park-resume-workload.js';
import type { Sessions } from '@parley/core';

const ROUND_TRIPS = Number(process.env.ROUNDS ?? 400);
const PARKED = Number(process.env.PARKED ?? 10_000);
const RESUMES = Number(process.env.RESUMES ?? 400);

/** The floor's side of a round trip, on one session id. */
interface Floor {
  roundTrip(id: string): Promise<void>;
}

const uuid = (): string => globalThis.crypto.randomUUID();

/** A comparable message list at the pause: the user message and the reply with its tool call. */
function pausedMessages(): unknown[] {
  const createdAt = new Date().toISOString();
  return [
    { id: uuid(), role: 'user', content: 'Write the note', createdAt },
    {
      id: uuid(),
      role: 'assistant',
      createdAt,
      content: [
        { type: 'tool_call', id: uuid(), name: 'write_file', input: JSON.stringify(INPUT) },
      ],
    },
  ];
}

/** Appends the tool result and the final answer to a parsed message list. */
function resumed(text: string): string {
  const messages: unknown = JSON.parse(text);
  if (!Array.isArray(messages)) throw new Error('not a message list');
  const reply: unknown = messages.at(-1);
  if (typeof reply !== 'object' || reply === null || !('content' in reply))
    throw new Error('no reply');
  const content: unknown = reply.content;
  if (!Array.isArray(content)) throw new Error('no content');
  const call: unknown = content[0];
  const callId = typeof call === 'object' && call !== null && 'id' in call ? call.id : '';
  content.push({
    type: 'tool_result',
    id: callId,
    name: 'write_file',
    output: 'ok',
    state: 'success',
  });
  content.push({ type: 'text', text: 'done' });
  return JSON.stringify(messages);
}

/** The floor on a plain better-sqlite3 table. */
class SqliteFloor implements Floor {
  private readonly database: Database.Database;
  private readonly insert: Database.Statement<[string, string]>;
  private readonly select: Database.Statement<[string], { messages: string }>;
  private readonly update: Database.Statement<[string, string]>;

  constructor(path: string, synchronous: 'FULL' | 'NORMAL') {
    this.database = new Database(path);
    this.database.pragma('journal_mode = WAL');
    this.database.pragma(`synchronous = ${synchronous}`);
    this.database.exec(
      'CREATE TABLE IF NOT EXISTS floor (id TEXT PRIMARY KEY, messages TEXT NOT NULL)',
    );
    this.insert = this.database.prepare('INSERT INTO floor (id, messages) VALUES (?, ?)');
    this.select = this.database.prepare('SELECT messages FROM floor WHERE id = ?');
    this.update = this.database.prepare('UPDATE floor SET messages = ? WHERE id = ?');
  }

  static pausedBytes(): number {
    return Buffer.byteLength(JSON.stringify(pausedMessages()));
  }

  pause(id: string): void {
    this.insert.run(id, JSON.stringify(pausedMessages()));
  }

  resume(id: string): void {
    const row = this.select.get(id);
    if (row === undefined) throw new Error('missing');
    this.update.run(resumed(row.messages), id);
  }

  async roundTrip(id: string): Promise<void> {
    this.pause(id);
    this.resume(id);
  }

  close(): void {
    this.database.close();
  }
}

/** The floor on a plain Postgres table. */
class PgFloor implements Floor {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
  ) {}

  static async open(pool: pg.Pool, schema: string): Promise<PgFloor> {
    const table = `${pg.escapeIdentifier(schema)}.floor`;
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, messages text NOT NULL)`);
    return new PgFloor(pool, table);
  }

  async roundTrip(id: string): Promise<void> {
    await this.pool.query(`INSERT INTO ${this.table} (id, messages) VALUES ($1, $2)`, [
      id,
      JSON.stringify(pausedMessages()),
    ]);
    const read = await this.pool.query<{ messages: string }>(
      `SELECT messages FROM ${this.table} WHERE id = $1`,
      [id],
    );
    const text = read.rows[0]?.messages;
    if (text === undefined) throw new Error('missing');
    await this.pool.query(`UPDATE ${this.table} SET messages = $1 WHERE id = $2`, [
      resumed(text),
      id,
    ]);
  }
}

type Timing = { median: number; p99: number };
const timing = (values: number[]): Timing => ({
  median: quantile(values, 0.5),
  p99: quantile(values, 0.99),
});

type Measured = { parley: Timing; floor: Timing; cpu?: { parley: number; floor: number } };

/** CPU time (user + system) in ms since `start`. */
const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Round trips of both sides, interleaved, each on a fresh session id. */
function roundTrips(sessions: Sessions, floor: Floor, count: number): Promise<Measured> {
  return timeSides(
    async (id) => resume(sessions, id, await park(sessions, id)),
    (id) => floor.roundTrip(id),
    count,
  );
}

/** Times two sides, interleaved, each on a fresh session id, after a warm-up of a fifth. */
async function timeSides(
  parleySide: (id: string) => Promise<void>,
  floorSide: (id: string) => Promise<void>,
  count: number,
): Promise<Measured> {
  const parley: number[] = [];
  const floorTimes: number[] = [];
  const parleyCpu: number[] = [];
  const floorCpu: number[] = [];
  for (let i = -Math.floor(count / 5); i < count; i++) {
    const id = globalThis.crypto.randomUUID();
    let cpu = process.cpuUsage();
    let start = performance.now();
    await parleySide(id);
    const parleyTime = performance.now() - start;
    const parleyUsed = cpuSince(cpu);
    cpu = process.cpuUsage();
    start = performance.now();
    await floorSide(id);
    const floorTime = performance.now() - start;
    const floorUsed = cpuSince(cpu);
    if (i < 0) continue; // warm-up
    parley.push(parleyTime);
    floorTimes.push(floorTime);
    parleyCpu.push(parleyUsed);
    floorCpu.push(floorUsed);
  }
  return {
    parley: timing(parley),
    floor: timing(floorTimes),
    cpu: { parley: quantile(parleyCpu, 0.5), floor: quantile(floorCpu, 0.5) },
  };
}

function report(label: string, result: Measured, target?: number): void {
  const median = result.parley.median / result.floor.median;
  const verdict =
    target === undefined ? '' : median <= target ? '  (target met)' : '  (target MISSED)';
  console.log(
    `  ${label}: Parley median ${ms(result.parley.median)}, p99 ${ms(result.parley.p99)}; ` +
      `floor median ${ms(result.floor.median)}, p99 ${ms(result.floor.p99)}; ` +
      `ratio median ${ratio(result.parley.median, result.floor.median)}, ` +
      `p99 ${ratio(result.parley.p99, result.floor.p99)}` +
      (target === undefined ? '' : `; target ≤ ${target}×${verdict}`),
  );
  if (result.cpu !== undefined) {
    console.log(
      `    CPU time (user + system) median: Parley ${ms(result.cpu.parley)}, floor ${ms(result.cpu.floor)}, ` +
        `ratio ${ratio(result.cpu.parley, result.cpu.floor)}`,
    );
  }
}

const fileSize = (path: string): number =>
  ['', '-wal', '-shm'].reduce((sum, suffix) => {
    try {
      return sum + statSync(path + suffix).size;
    } catch {
      return sum;
    }
  }, 0);

async function sqliteRuns(directory: string): Promise<void> {
  console.log(`SQLite (better-sqlite3, WAL), ${ROUND_TRIPS} round trips per mode:`);
  const results = new Map<string, Measured>();
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    for (const persist of ['steps', 'boundaries'] as const) {
      const path = join(directory, `parley-${synchronous}-${persist}.sqlite`);
      const store = new SqliteSessionStore({ path, synchronous });
      const floorPath = join(directory, `floor-${synchronous}-${persist}.sqlite`);
      const floor = new SqliteFloor(floorPath, synchronous);
      const result = await roundTrips(sessionsOn(store, persist), floor, ROUND_TRIPS);
      const label = `synchronous=${synchronous}, persist '${persist}'`;
      report(label, result, synchronous === 'FULL' ? 2 : 8);
      results.set(`${synchronous} ${persist}`, result);
      await store.close();
      floor.close();
    }
  }
  await fsyncBudgets(results);

  await splitRuns(directory);

  // Paused-state bytes: what each side stores at the pause.
  const store = new SqliteSessionStore({ path: join(directory, 'bytes.sqlite') });
  const sessions = sessionsOn(store);
  await park(sessions, 'bytes');
  const raw = new Database(join(directory, 'bytes.sqlite'), { readonly: true });
  const row = raw
    .prepare<[], { n: number }>(
      `SELECT length(CAST(state AS BLOB)) + (SELECT coalesce(sum(length(CAST(message AS BLOB))), 0)
         FROM session_messages WHERE session_id = 'bytes') AS n FROM sessions WHERE id = 'bytes'`,
    )
    .get();
  raw.close();
  await store.close();
  const parleyBytes = row?.n ?? Number.NaN;
  const floorBytes = SqliteFloor.pausedBytes();
  console.log(
    `  paused state: Parley ${parleyBytes} bytes, floor ${floorBytes} bytes, ` +
      `ratio ${ratio(parleyBytes, floorBytes)}; target ≤ 2×${parleyBytes / floorBytes <= 2 ? '  (target met)' : '  (target MISSED)'}`,
  );

  // Ten thousand parked sessions in one file; resume random ones.
  const parkedPath = join(directory, 'parked.sqlite');
  const fill = new SqliteSessionStore({ path: parkedPath, synchronous: 'NORMAL' });
  const fillSessions = sessionsOn(fill);
  const floor = new SqliteFloor(join(directory, 'floor-parked.sqlite'), 'NORMAL');
  const approvals = new Map<string, UserConfirmResultEvent>();
  for (let i = 0; i < PARKED; i++) {
    const id = `parked-${i}`;
    approvals.set(id, await park(fillSessions, id));
    floor.pause(id);
  }
  await fill.close();
  floor.close();
  const parleyFile = fileSize(parkedPath);
  const floorFile = fileSize(join(directory, 'floor-parked.sqlite'));
  console.log(
    `  ${PARKED} parked sessions: file ${(parleyFile / 1e6).toFixed(1)} MB, floor ${(floorFile / 1e6).toFixed(1)} MB, ratio ${ratio(parleyFile, floorFile)}`,
  );
  const resumeStore = new SqliteSessionStore({ path: parkedPath });
  const resumeSessions = sessionsOn(resumeStore);
  const resumeFloor = new SqliteFloor(join(directory, 'floor-parked.sqlite'), 'FULL');
  const ids = [...approvals.keys()].sort(() => Math.random() - 0.5).slice(0, RESUMES);
  const parleyTimes: number[] = [];
  const floorTimes: number[] = [];
  for (const id of ids) {
    let start = performance.now();
    await resume(resumeSessions, id, approvals.get(id)!);
    parleyTimes.push(performance.now() - start);
    start = performance.now();
    resumeFloor.resume(id);
    floorTimes.push(performance.now() - start);
  }
  report(
    `resume one of ${PARKED} (synchronous=FULL, ${RESUMES} random)`,
    { parley: timing(parleyTimes), floor: timing(floorTimes) },
    2,
  );
  console.log(
    `  peak RSS so far (10,000 parked sessions served from one store, cache on, bound ` +
      `${DEFAULT_SESSION_CACHE_BYTES / 1024 ** 2} MiB): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  );
  await resumeStore.close();
  resumeFloor.close();
}

/**
 * What the FULL target leaves for everything but the fsyncs: one fsync is
 * taken as half the floor's FULL − NORMAL difference (its round trip makes
 * two fsynced commits), and Parley's fsynced writes are counted off a
 * recorded round trip.
 */
async function fsyncBudgets(results: Map<string, Measured>): Promise<void> {
  console.log('  fsync budget (one fsync ≈ (floor FULL − floor NORMAL) / 2, from the runs above):');
  for (const persist of ['steps', 'boundaries'] as const) {
    const full = results.get(`FULL ${persist}`);
    const normal = results.get(`NORMAL ${persist}`);
    if (full === undefined || normal === undefined) continue;
    const fsync = (full.floor.median - normal.floor.median) / 2;
    const saves = await recordSaves(persist);
    const strict = saves.filter(({ options }) => options.relaxed !== true).length;
    console.log(
      `    '${persist}': ${saves.length} writes per round trip, ${strict} fsynced (floor: 2, both fsynced); ` +
        `one fsync ≈ ${ms(fsync)}; Parley's fsyncs alone ≈ ${ratio(strict * fsync, full.floor.median)} floor; ` +
        `the 2.0× target leaves ${ms(2 * full.floor.median - strict * fsync)} for the rest, ` +
        `which takes ${ms(normal.parley.median)} with synchronous=NORMAL`,
    );
  }
}

/** One save as the runner made it. */
type Save = { state: AgentState; options: SaveOptions };

/** The saves of one round trip, in order, recorded off an in-memory store. */
async function recordSaves(persist: PersistSchedule): Promise<Save[]> {
  const inner = new InMemorySessionStore();
  const saves: Save[] = [];
  const recording: SessionStore = {
    load: (id) => inner.load(id),
    save: (id, state, version, options = {}) => {
      saves.push({ state: structuredClone(state), options: structuredClone(options) });
      return inner.save(id, state, version, options);
    },
  };
  const sessions = sessionsOn(recording, persist);
  await resume(sessions, 'recorded', await park(sessions, 'recorded'));
  return saves;
}

/** Replays `saves` on session `id` (ids and audit records moved to it). */
async function replay(store: SessionStore, id: string, saves: Save[]): Promise<void> {
  let version = 0;
  for (const { state, options } of saves) {
    const audit = options.audit?.map((record) => ({ ...record, sessionId: id }));
    version = await store.save(id, { ...state, sessionId: id }, version, {
      ...options,
      ...(audit === undefined ? {} : { audit }),
    });
  }
}

/** Parley's NORMAL round trip split: the runtime without a database, the store without the runtime. */
async function splitRuns(directory: string): Promise<void> {
  console.log('  split of the synchronous=NORMAL round trip (each against the NORMAL floor):');
  for (const persist of ['steps', 'boundaries'] as const) {
    const floor = new SqliteFloor(
      join(directory, `floor-split-runtime-${persist}.sqlite`),
      'NORMAL',
    );
    const runtime = await roundTrips(
      sessionsOn(new InMemorySessionStore(), persist),
      floor,
      ROUND_TRIPS,
    );
    floor.close();
    report(`runtime alone (InMemorySessionStore), persist '${persist}'`, runtime);

    const saves = await recordSaves(persist);
    const path = join(directory, `store-alone-${persist}.sqlite`);
    const store = new SqliteSessionStore({ path, synchronous: 'NORMAL' });
    const storeFloor = new SqliteFloor(
      join(directory, `floor-split-store-${persist}.sqlite`),
      'NORMAL',
    );
    const writes = await timeSides(
      (id) => replay(store, id, saves),
      (id) => storeFloor.roundTrip(id),
      ROUND_TRIPS,
    );
    report(`SQLite store alone (${saves.length} saves replayed), persist '${persist}'`, writes);
    await store.close();
    storeFloor.close();
  }
}

async function postgresRuns(url: string): Promise<void> {
  const schema = `parley_bench_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const store = await PostgresSessionStore.open({ pool, schema });
  const floor = await PgFloor.open(pool, schema);
  try {
    const count = Math.min(ROUND_TRIPS, 200);
    console.log(`Postgres, ${count} round trips:`);
    for (const persist of ['steps', 'boundaries'] as const) {
      report(`persist '${persist}'`, await roundTrips(sessionsOn(store, persist), floor, count));
    }
  } finally {
    await store.close();
    await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await pool.end();
  }
}

// PARTS=history runs the history axis alone; PARTS=base the rest alone.
const parts = process.env.PARTS ?? 'base,history';
const directory = mkdtempSync(join(tmpdir(), 'parley-bench-'));
try {
  const url = process.env.PARLEY_PG_URL;
  if (parts.includes('base')) {
    await sqliteRuns(directory);
    if (url === undefined || url === '') {
      console.log('Postgres: skipped (PARLEY_PG_URL is not set)');
    } else {
      await postgresRuns(url);
    }
  }
  if (parts.includes('history')) await historyRuns(directory, url);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
