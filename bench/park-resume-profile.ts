// Parley's side of the history axis alone, for a CPU profile: a session of
// TURNS earlier turns (default 1,000) on SQLite (synchronous=NORMAL), served
// by one store, ROUNDS round trips (default 300); then COLD loads by a store
// with no cache. No floor runs in this process. SESSIONS (default 1): how
// many sessions are seeded and served in turn.
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/park-resume-profile.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { seedState } from './park-resume-history.js';
import { ms, park, quantile, resume, sessionsOn } from './park-resume-workload.js';

const TURNS = Number(process.env.TURNS ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 300);
const COLD = Number(process.env.COLD ?? 50);

const directory = mkdtempSync(join(tmpdir(), 'parley-profile-'));
try {
  const path = join(directory, 'profile.sqlite');
  const store = new SqliteSessionStore({ path, synchronous: 'NORMAL', cacheBytes: 2 * 1024 ** 3 });
  // SESSIONS > 1: that many sessions seeded up front (all kept in the cache), served in turn.
  const count = Number(process.env.SESSIONS ?? 1);
  const ids = Array.from({ length: count }, (_, index) => `profiled-${index}`);
  for (const seeded of ids) await store.save(seeded, seedState(seeded, TURNS), 0);
  const id = ids[0] ?? 'profiled-0';
  const sessions = sessionsOn(store);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const served = ids[round % count] ?? id;
    const start = performance.now();
    await resume(sessions, served, await park(sessions, served));
    times.push(performance.now() - start);
  }
  const cold = new SqliteSessionStore({ path, cacheBytes: 0 });
  const loads: number[] = [];
  for (let sample = 0; sample < COLD; sample++) {
    const start = performance.now();
    await cold.load(id);
    loads.push(performance.now() - start);
  }
  console.log(
    `${TURNS} earlier turns: round trip median ${ms(quantile(times, 0.5))} (${ROUNDS}), ` +
      `cold load median ${ms(quantile(loads, 0.5))} (${COLD})`,
  );
  await store.close();
  await cold.close();
} finally {
  rmSync(directory, { recursive: true, force: true });
}
