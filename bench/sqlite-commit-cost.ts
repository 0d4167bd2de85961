// What one better-sqlite3 commit costs on this machine, by the pages it
// writes and the synchronous mode: the floor under any store's save. Each
// transaction inserts one 200-byte row into each of PAGES tables (so it
// writes PAGES table pages to the WAL), COMMITS times after a warm-up, on a
// fresh file in WAL mode. Prints the mean wall time and CPU time (user and
// system) per commit. bench/park-resume.ts's saves write 2 to 4 pages each
// (store-0002, "Seventh pass").
//
//   npx tsx bench/sqlite-commit-cost.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

const COMMITS = Number(process.env.COMMITS ?? 1000);
const PAGES = (process.env.PAGES ?? '1,2,4,8,16').split(',').map(Number);
const TABLES = Math.max(...PAGES);

const directory = mkdtempSync(join(tmpdir(), 'parley-commit-cost-'));
try {
  for (const synchronous of ['FULL', 'NORMAL']) {
    for (const pages of PAGES) {
      const path = join(directory, `${synchronous}-${pages}.sqlite`);
      const database = new Database(path);
      database.pragma('journal_mode = WAL');
      database.pragma(`synchronous = ${synchronous}`);
      for (let table = 0; table < TABLES; table++) {
        database.exec(`CREATE TABLE t${table} (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`);
      }
      const inserts = Array.from({ length: pages }, (_, table) =>
        database.prepare<[string]>(`INSERT INTO t${table} (value) VALUES (?)`),
      );
      const value = 'x'.repeat(200);
      const commit = database.transaction(() => {
        for (const insert of inserts) insert.run(value);
      });
      for (let warm = 0; warm < 200; warm++) commit();
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let index = 0; index < COMMITS; index++) commit();
      const wall = ((performance.now() - started) * 1000) / COMMITS;
      const used = process.cpuUsage(cpu);
      const perCommit = (used.user + used.system) / COMMITS;
      console.log(
        `synchronous=${synchronous.padEnd(6)} ${String(pages).padStart(2)} pages: ` +
          `wall ${wall.toFixed(0).padStart(4)} µs, CPU ${perCommit.toFixed(0).padStart(4)} µs ` +
          `(system ${(used.system / COMMITS).toFixed(0)} µs) per commit`,
      );
      database.close();
    }
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
