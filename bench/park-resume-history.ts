// The history axis of bench/park-resume.ts: the same round trip on a
// session that already holds 0, 100, 1,000 or 10,000 earlier turns (a user
// message and an answer with a tool call and a 1 KB result each), on SQLite
// FULL and NORMAL and on Postgres.
//
// Parley: each round trip (park, resume) runs on a fresh session of exactly
// that history, once with each write schedule ('steps' and 'boundaries', on
// sessions of their own), seeded before the timed runs (SQLite's WAL is
// checkpointed then) by the store that serves it, whose cache is made big
// enough to hold them all: the same process served each session last.
// Beside them, in the same loop and store, each schedule also runs a round
// trip on a fresh session with no history: the growth with the history
// (the 1,000-against-0 target) is read against that round trip, made under
// the same conditions (the same heap, the floor's garbage between, the
// same machine load), not against the one timed in the phase at 0 turns.
// The Parley round trips of one iteration take turns at running first: the
// one right after the floor's (megabytes parsed and written at 1,000
// turns) pays for its garbage and finds the CPU caches cold. Floor: one row
// holding the JSON of the same message list; each half of a round trip
// reads it, parses it, appends, and writes it whole.
// Cold load: another store over the same data with no cache (as another
// process would load it) against the floor's read and parse. Bytes written:
// what the process hands to write(2) during Parley's round trips
// (/proc/self/io wchar: WAL frames and checkpoints), per round trip.
//
//   HISTORY=0,100,1000 npx tsx bench/park-resume.ts      (the axis alone: PARTS=history)
import { join } from 'node:path';
import type { AgentState, Msg, Sessions, SessionStore } from '@parley/core';
import { AGENT_STATE_VERSION } from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { PostgresSessionStore } from '@parley/store-postgres';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  bytesWritten,
  ms,
  park,
  quantile,
  ratio,
  resume,
  sessionsOn,
} from './park-resume-workload.js';
import type { HistoryFloor } from './park-resume-history-floor.js';
import {
  PgHistoryFloor,
  SqliteHistoryFloor,
  floorRoundTrip,
  parseList,
} from './park-resume-history-floor.js';

const HISTORY = (process.env.HISTORY ?? '0,100,1000,10000').split(',').map(Number);
const COLD_LOADS = 20;
/** The serving store's cache bound here: every seeded session fits (2 GiB). */
const CACHE_BYTES = 2 * 1024 ** 3;

/** How many round trips to time at `turns` earlier turns (fewer where the floor is slow). */
const roundsAt = (turns: number): number =>
  Number(process.env.HISTORY_ROUNDS ?? (turns <= 100 ? 100 : turns <= 1000 ? 40 : 8));

const createdAt = '2026-12-03T10:00:00.000Z';
const RESULT = 'x'.repeat(1024);

/** `turns` earlier turns: a user message, then an answer with a tool call, its 1 KB result and a text. */
function history(turns: number): Msg[] {
  const messages: Msg[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(
      { id: `u${turn}`, name: 'user', role: 'user', content: `Read file ${turn}`, createdAt },
      {
        id: `a${turn}`,
        name: 'assistant',
        role: 'assistant',
        createdAt,
        finishedReason: 'completed',
        content: [
          {
            type: 'tool_call',
            id: `c${turn}`,
            name: 'read_file',
            input: `{"path":"notes/${turn}.txt"}`,
            state: 'finished',
            suggestedRules: [],
          },
          {
            type: 'tool_result',
            id: `c${turn}`,
            name: 'read_file',
            output: [{ type: 'text', text: RESULT }],
            state: 'success',
          },
          { type: 'text', text: 'Read it.' },
        ],
      },
    );
  }
  return messages;
}

/** A session state of `sessionId` holding `turns` earlier turns and nothing in progress. */
export function seedState(sessionId: string, turns: number): AgentState {
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId,
    context: history(turns),
    permission: {
      mode: 'default',
      workingDirectories: [],
      allowRules: [],
      denyRules: [],
      askRules: [],
    },
    reply: null,
  };
}

/** CPU time (user + system) in ms since `start`. */
const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Medians of one side at one point of the axis. */
type Side = { time: number; cpu: number };

type Point = {
  turns: number;
  steps: Side;
  boundaries: Side;
  /** The same schedules on sessions with no history, timed beside them. */
  stepsBeside: Side;
  boundariesBeside: Side;
  floor: Side;
  coldParley: number;
  coldFloor: number;
  /** Bytes written per round trip, persist 'steps'. */
  bytes: number;
};

/** Times one side: wall and CPU time. */
async function timed(side: () => Promise<void>): Promise<Side> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await side();
  return { time: performance.now() - start, cpu: cpuSince(cpu) };
}

/** The medians of the timed samples. */
const medians = (samples: Side[]): Side => ({
  time: quantile(
    samples.map((sample) => sample.time),
    0.5,
  ),
  cpu: quantile(
    samples.map((sample) => sample.cpu),
    0.5,
  ),
});

/**
 * One point of the axis: round trips (Parley with both write schedules, on
 * sessions of their own, and the floor, interleaved), cold loads and bytes.
 */
async function measure(
  turns: number,
  store: SessionStore,
  cold: SessionStore,
  floor: HistoryFloor,
  settle: () => void,
): Promise<Point> {
  const steps = sessionsOn(store, 'steps');
  const boundaries = sessionsOn(store, 'boundaries');
  const rounds = roundsAt(turns);
  const samples: Record<
    'steps' | 'boundaries' | 'stepsBeside' | 'boundariesBeside' | 'floor',
    Side[]
  > = { steps: [], boundaries: [], stepsBeside: [], boundariesBeside: [], floor: [] };
  let bytes = 0;
  const warmUp = Math.ceil(rounds / 5);
  // Fresh sessions of exactly `turns` earlier turns, seeded before any is timed.
  const seedText = JSON.stringify(history(turns));
  const ids = Array.from(
    { length: warmUp + rounds },
    () => `history-${turns}-${globalThis.crypto.randomUUID()}`,
  );
  for (const id of ids) {
    await store.save(id, seedState(id, turns), 0);
    await store.save(`${id}-b`, seedState(`${id}-b`, turns), 0);
    // The sessions timed beside them: seeded the same way, with no history.
    for (const beside of [`${id}-0`, `${id}-0b`]) await store.save(beside, seedState(beside, 0), 0);
    await floor.seed(id, seedText);
  }
  settle();
  const stepsSide = async (id: string): Promise<{ side: Side; written: number }> => {
    const before = bytesWritten();
    const side = await timed(async () => resume(steps, id, await park(steps, id)));
    return { side, written: bytesWritten() - before };
  };
  const roundTrip = (sessions: Sessions, id: string): Promise<Side> =>
    timed(async () => resume(sessions, id, await park(sessions, id)));
  for (const [index, id] of ids.entries()) {
    let written = 0;
    const sides: Partial<Record<keyof typeof samples, Side>> = {};
    const runs: (() => Promise<void>)[] = [
      async () => {
        const timedSteps = await stepsSide(id);
        sides.steps = timedSteps.side;
        written = timedSteps.written;
      },
      async () => {
        sides.boundaries = await roundTrip(boundaries, `${id}-b`);
      },
      async () => {
        sides.stepsBeside = await roundTrip(steps, `${id}-0`);
      },
      async () => {
        sides.boundariesBeside = await roundTrip(boundaries, `${id}-0b`);
      },
    ];
    // Each iteration starts one further along, so each kind runs first as often.
    for (let run = 0; run < runs.length; run++) await runs[(index + run) % runs.length]!();
    sides.floor = await timed(() => floorRoundTrip(floor, id, index));
    if (index < warmUp) continue;
    for (const kind of [
      'steps',
      'boundaries',
      'stepsBeside',
      'boundariesBeside',
      'floor',
    ] as const) {
      const side = sides[kind];
      if (side !== undefined) samples[kind].push(side);
    }
    bytes += written;
  }
  const id = ids.at(-1) ?? '';
  const coldParley: number[] = [];
  const coldFloor: number[] = [];
  for (let sample = 0; sample < COLD_LOADS; sample++) {
    let start = performance.now();
    if ((await cold.load(id)) === undefined) throw new Error('not loaded');
    coldParley.push(performance.now() - start);
    start = performance.now();
    parseList(await floor.read(id));
    coldFloor.push(performance.now() - start);
  }
  return {
    turns,
    steps: medians(samples.steps),
    boundaries: medians(samples.boundaries),
    stepsBeside: medians(samples.stepsBeside),
    boundariesBeside: medians(samples.boundariesBeside),
    floor: medians(samples.floor),
    coldParley: quantile(coldParley, 0.5),
    coldFloor: quantile(coldFloor, 0.5),
    bytes: bytes / rounds,
  };
}

const verdict = (value: number, target: number): string =>
  `${value.toFixed(2)}× (target ≤ ${target}×: ${value <= target ? 'met' : 'MISSED'})`;

/** Prints the axis of one backend and its targets. */
function report(label: string, points: Point[], withBytes: boolean): void {
  console.log(`  ${label} (medians):`);
  console.log(
    '    earlier turns | floor | Parley steps | Parley boundaries | steps/floor | boundaries/floor | ' +
      'steps/steps@0 | boundaries/boundaries@0 | steps@0 beside | steps/beside | ' +
      'boundaries/beside | CPU floor | CPU steps | CPU boundaries | ' +
      'CPU steps/steps@0 | cold load Parley | cold load floor' +
      (withBytes ? ' | bytes written per round trip (steps)' : ''),
  );
  const zero = points.find((point) => point.turns === 0);
  const of = (value: number, base: number | undefined): string =>
    base === undefined ? '-' : ratio(value, base);
  for (const point of points) {
    console.log(
      `    ${point.turns} | ${ms(point.floor.time)} | ${ms(point.steps.time)} | ` +
        `${ms(point.boundaries.time)} | ${ratio(point.steps.time, point.floor.time)} | ` +
        `${ratio(point.boundaries.time, point.floor.time)} | ${of(point.steps.time, zero?.steps.time)} | ` +
        `${of(point.boundaries.time, zero?.boundaries.time)} | ${ms(point.stepsBeside.time)} | ` +
        `${ratio(point.steps.time, point.stepsBeside.time)} | ` +
        `${ratio(point.boundaries.time, point.boundariesBeside.time)} | ${ms(point.floor.cpu)} | ` +
        `${ms(point.steps.cpu)} | ${ms(point.boundaries.cpu)} | ${of(point.steps.cpu, zero?.steps.cpu)} | ` +
        `${ms(point.coldParley)} | ${ms(point.coldFloor)}` +
        (withBytes ? ` | ${(point.bytes / 1024).toFixed(1)} KB` : ''),
    );
  }
  const thousand = points.find((point) => point.turns === 1000);
  if (zero === undefined || thousand === undefined) return;
  for (const persist of ['steps', 'boundaries'] as const) {
    const beside = persist === 'steps' ? thousand.stepsBeside : thousand.boundariesBeside;
    console.log(
      `    '${persist}': round trip at 1,000 / at 0 timed beside it: ` +
        `${verdict(thousand[persist].time / beside.time, 1.5)}; ` +
        `CPU time ${ratio(thousand[persist].cpu, beside.cpu)}; ` +
        `at 0 timed in its own phase: ${ratio(thousand[persist].time, zero[persist].time)} ` +
        `(CPU ${ratio(thousand[persist].cpu, zero[persist].cpu)}); ` +
        `at 1,000 / floor at 1,000: ${verdict(thousand[persist].time / thousand.floor.time, 0.5)}`,
    );
  }
  console.log(
    `    cold load at 1,000 / floor's: ${verdict(thousand.coldParley / thousand.coldFloor, 1)}`,
  );
  if (withBytes) {
    console.log(
      `    bytes per round trip at 1,000 / at 0: ${verdict(thousand.bytes / zero.bytes, 2)}`,
    );
  }
}

/** The history axis on SQLite (FULL, NORMAL) and, with `url`, on Postgres. */
export async function historyRuns(directory: string, url: string | undefined): Promise<void> {
  console.log(`History axis (${HISTORY.join(', ')} earlier turns, 1 KB tool result each):`);
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    const points: Point[] = [];
    for (const turns of HISTORY) {
      const path = join(directory, `history-${synchronous}-${turns}.sqlite`);
      const store = new SqliteSessionStore({ path, synchronous, cacheBytes: CACHE_BYTES });
      const cold = new SqliteSessionStore({ path, cacheBytes: 0 });
      const floorPath = join(directory, `history-floor-${synchronous}-${turns}.sqlite`);
      const floor = new SqliteHistoryFloor(floorPath, synchronous);
      // The seeds' pages are copied out of the WAL before the round trips, not during them.
      const settle = (): void => {
        for (const file of [path, floorPath]) {
          const probe = new Database(file);
          probe.pragma('wal_checkpoint(RESTART)');
          probe.close();
        }
      };
      points.push(await measure(turns, store, cold, floor, settle));
      await store.close();
      await cold.close();
      floor.close();
    }
    report(`SQLite synchronous=${synchronous}`, points, true);
  }
  if (url === undefined || url === '') return;
  const schema = `parley_history_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const store = await PostgresSessionStore.open({ pool, schema, cacheBytes: CACHE_BYTES });
  const cold = await PostgresSessionStore.open({ pool, schema, cacheBytes: 0 });
  const floor = await PgHistoryFloor.open(pool, schema);
  try {
    const points: Point[] = [];
    for (const turns of HISTORY) {
      points.push(await measure(turns, store, cold, floor, () => undefined));
    }
    report('Postgres', points, false);
  } finally {
    await store.close();
    await cold.close();
    await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await pool.end();
  }
}
