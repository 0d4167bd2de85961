// Parley's side of the history axis alone (no floor in this process), for a
// CPU profile and for the ratio at 1,000 earlier turns to 0 without the
// floor's garbage in the same heap: for each of TURNS (default "0,1000"),
// SESSIONS sessions (default 36) of that many earlier turns on SQLite
// (synchronous=NORMAL), seeded up front by one store whose cache holds them
// all, then ROUNDS round trips (default 144) serving them in turn; then
// COLD loads (default 20) by a store with no cache.
//
// PROFILE=<file>: a CPU profile of the timed round trips of the last TURNS
// only (not the seeding, not the cold loads), for Chrome DevTools.
//
//   TURNS=1000 PROFILE=/tmp/round-trips.cpuprofile npx tsx bench/park-resume-profile.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { seedState } from './park-resume-history.js';
import { ms, park, quantile, resume, sessionsOn } from './park-resume-workload.js';

const TURNS = (process.env.TURNS ?? '0,1000').split(',').map(Number);
const SESSIONS = Number(process.env.SESSIONS ?? 36);
const ROUNDS = Number(process.env.ROUNDS ?? 144);
const COLD = Number(process.env.COLD ?? 20);
const PROFILE = process.env.PROFILE;

const directory = mkdtempSync(join(tmpdir(), 'parley-profile-'));
try {
  const medians = new Map<number, number>();
  for (const turns of TURNS) {
    const path = join(directory, `profile-${turns}.sqlite`);
    const store = new SqliteSessionStore({
      path,
      synchronous: 'NORMAL',
      cacheBytes: 2 * 1024 ** 3,
    });
    const ids = Array.from({ length: SESSIONS }, (_, index) => `profiled-${index}`);
    for (const id of ids) await store.save(id, seedState(id, turns), 0);
    const sessions = sessionsOn(store);
    const times: number[] = [];
    const profiler = PROFILE === undefined ? undefined : new Session();
    profiler?.connect();
    await profiler?.post('Profiler.enable');
    await profiler?.post('Profiler.start');
    // A fifth more round trips first, untimed, to warm up (the first TURNS pays for the JIT).
    for (let round = -Math.ceil(ROUNDS / 5); round < ROUNDS; round++) {
      const id = ids[(round + ROUNDS) % SESSIONS] ?? 'profiled-0';
      const start = performance.now();
      await resume(sessions, id, await park(sessions, id));
      if (round >= 0) times.push(performance.now() - start);
    }
    if (profiler !== undefined && PROFILE !== undefined) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(PROFILE, JSON.stringify(profile));
      profiler.disconnect();
    }
    const cold = new SqliteSessionStore({ path, cacheBytes: 0 });
    const loads: number[] = [];
    for (let sample = 0; sample < COLD; sample++) {
      const start = performance.now();
      await cold.load(ids[0] ?? 'profiled-0');
      loads.push(performance.now() - start);
    }
    const median = quantile(times, 0.5);
    medians.set(turns, median);
    const zero = medians.get(0);
    console.log(
      `${turns} earlier turns: round trip median ${ms(median)} (${ROUNDS})` +
        (zero === undefined ? '' : `, ${(median / zero).toFixed(2)}× the one at 0`) +
        `; cold load median ${ms(quantile(loads, 0.5))} (${COLD})`,
    );
    await store.close();
    await cold.close();
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
