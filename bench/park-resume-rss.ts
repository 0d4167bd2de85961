// Peak RSS with PARKED (default 10,000) parked sessions served by one
// SQLite store in this process, its session cache bounded by CACHE_BYTES
// (default: the store's default, 64 MiB; 0 turns the cache off). Each
// session is parked through Sessions (so the cache holds what the store
// served), then RESUMES (default 400) random ones are resumed. Run it once
// per bound, each in a process of its own, so nothing else is in the heap:
//
//   npx tsx bench/park-resume-rss.ts
//   CACHE_BYTES=0 npx tsx bench/park-resume-rss.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SESSION_CACHE_BYTES } from '@parley/core';
import type { UserConfirmResultEvent } from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { park, resume, sessionsOn } from './park-resume-workload.js';

const PARKED = Number(process.env.PARKED ?? 10_000);
const RESUMES = Number(process.env.RESUMES ?? 400);
const CACHE_BYTES = Number(process.env.CACHE_BYTES ?? DEFAULT_SESSION_CACHE_BYTES);

const mb = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MB`;
const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

const directory = mkdtempSync(join(tmpdir(), 'parley-rss-'));
try {
  const startRss = peakRss();
  const store = new SqliteSessionStore({
    path: join(directory, 'parked.sqlite'),
    synchronous: 'NORMAL',
    cacheBytes: CACHE_BYTES,
  });
  const sessions = sessionsOn(store);
  const approvals = new Map<string, UserConfirmResultEvent>();
  for (let i = 0; i < PARKED; i++) {
    const id = `parked-${i}`;
    approvals.set(id, await park(sessions, id));
  }
  const parkedRss = peakRss();
  const ids = [...approvals.keys()].sort(() => Math.random() - 0.5).slice(0, RESUMES);
  for (const id of ids) {
    const approval = approvals.get(id);
    if (approval !== undefined) await resume(sessions, id, approval);
  }
  await store.close();
  const { heapUsed } = process.memoryUsage();
  console.log(
    `${PARKED} parked sessions, cache bound ${mb(CACHE_BYTES)}: peak RSS ${mb(startRss)} before, ` +
      `${mb(parkedRss)} once all parked, ${mb(peakRss())} after ${RESUMES} resumes; ` +
      `heap used at the end ${mb(heapUsed)}`,
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
