// The store's own share of a round trip at 0 and at 1,000 earlier turns,
// without the runtime and without the floor: SESSIONS sessions of each
// length (default 200) on SQLite (synchronous=NORMAL), seeded up front by
// one store whose cache holds them all; then each session, taken in turn
// (one of 0 turns, one of 1,000), is loaded once and saved five times (a
// message added before each save, as a reply's steps add them). Prints the
// medians of the load and of the mean save, per length. A session is
// touched once after seeding, as in the history axis: what a save costs on
// a session whose data the CPU caches no longer hold.
//
//   npx tsx --conditions=@parley/source bench/park-resume-saves.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { seedState } from './park-resume-history.js';
import { quantile } from './park-resume-workload.js';

const SESSIONS = Number(process.env.SESSIONS ?? 200);
const LENGTHS = [0, 1000];

const directory = mkdtempSync(join(tmpdir(), 'parley-saves-'));
try {
  const store = new SqliteSessionStore({
    path: join(directory, 'saves.sqlite'),
    synchronous: 'NORMAL',
    cacheBytes: 2 * 1024 ** 3,
  });
  const ids = LENGTHS.map((turns) =>
    Array.from({ length: SESSIONS }, (_, index) => `saves-${turns}-${index}`),
  );
  for (const [at, turns] of LENGTHS.entries()) {
    for (const id of ids[at] ?? []) await store.save(id, seedState(id, turns), 0);
  }
  const saves: number[][] = LENGTHS.map(() => []);
  const loads: number[][] = LENGTHS.map(() => []);
  for (let index = 0; index < SESSIONS; index++) {
    for (const at of LENGTHS.keys()) {
      const id = ids[at]?.[index] ?? '';
      let start = performance.now();
      const loaded = await store.load(id);
      loads[at]?.push(performance.now() - start);
      if (loaded === undefined) throw new Error('not loaded');
      const { state } = loaded;
      let version = loaded.version;
      start = performance.now();
      for (let step = 0; step < 5; step++) {
        state.context.push({ id: `m${step}`, name: 'user', role: 'user', content: `step ${step}` });
        version = await store.save(id, state, version, { relaxed: true });
      }
      saves[at]?.push((performance.now() - start) / 5);
    }
  }
  const us = (values: number[] | undefined): string =>
    `${(quantile(values ?? [], 0.5) * 1000).toFixed(1)} µs`;
  for (const [at, turns] of LENGTHS.entries()) {
    console.log(`${turns} earlier turns: load ${us(loads[at])}, save ${us(saves[at])} (medians)`);
  }
  await store.close();
} finally {
  rmSync(directory, { recursive: true, force: true });
}
