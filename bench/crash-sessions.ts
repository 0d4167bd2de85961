// Crash safety, for real: a worker process drives HITL round trips on
// SQLite-stored sessions and is killed with SIGKILL at random moments
// (during model streaming, during a tool, inside or between writes), then
// restarted, until the round trips are done. Afterwards every session must
// load, no confirmed decision may be lost, and no tool call may have run
// twice (the tool body itself records each run in a side table with the
// tool call id as primary key). Prints the counts; exits 1 on a violation.
//
//   npx tsx bench/crash-sessions.ts [--rounds 1000] [--sessions 8] [--max-life 300]
//                                    [--persist steps|boundaries] [--json]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { agentTexts } from '@parley/core';
import type { ToolCallBlock, ToolResultBlock } from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import Database from 'better-sqlite3';
import { build } from 'esbuild';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '1000' },
    sessions: { type: 'string', default: '8' },
    'max-life': { type: 'string', default: '300' },
    persist: { type: 'string', default: 'steps' },
    json: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const SESSIONS = Number(values.sessions);
const MAX_LIFE = Number(values['max-life']);
const perSession = Math.ceil(ROUNDS / SESSIONS);

const directory = mkdtempSync(join(tmpdir(), 'parley-crash-'));
const path = join(directory, 'sessions.sqlite');
await new SqliteSessionStore({ path }).close();
const side = new Database(path);
side.exec(`
  CREATE TABLE tool_attempts (seq INTEGER PRIMARY KEY, tool_call_id TEXT NOT NULL);
  CREATE TABLE tool_executions (tool_call_id TEXT PRIMARY KEY);
  CREATE TABLE tool_violations (tool_call_id TEXT NOT NULL);
  CREATE TABLE acks (session_id TEXT NOT NULL, tool_call_id TEXT NOT NULL);`);

// Bundled once so that each restart costs a plain node start, not a TypeScript compile.
const cache = fileURLToPath(new URL('../node_modules/.cache/parley-bench/', import.meta.url));
mkdirSync(cache, { recursive: true });
const worker = join(cache, `crash-worker-${globalThis.crypto.randomUUID()}.mjs`);
await build({
  entryPoints: [fileURLToPath(new URL('./crash-worker.ts', import.meta.url))],
  outfile: worker,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  conditions: ['@parley/source'],
  logLevel: 'warning',
});

type Life = { finished: boolean; killedIn: string | undefined };
const PHASES: Record<string, string> = {
  M: 'model streaming',
  T: 'tool running',
  S: 'store write',
};

/** One worker process: runs until done, or until SIGKILL after a random delay. */
function life(): Promise<Life> {
  return new Promise((resolve, reject) => {
    const args = [worker, path, String(SESSIONS), String(perSession), values.persist];
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let phase = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const started = output.includes('ready\n');
      output += chunk;
      if (!started && output.includes('ready\n')) {
        setTimeout(() => {
          killed = child.kill('SIGKILL');
        }, Math.random() * MAX_LIFE);
      }
      for (const char of chunk) if ('MmTtSs'.includes(char)) phase = char;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (output.includes('done\n')) return resolve({ finished: true, killedIn: undefined });
      if (!killed || signal !== 'SIGKILL') {
        return reject(new Error(`worker exited with ${code ?? signal} before being killed`));
      }
      resolve({ finished: false, killedIn: PHASES[phase] ?? 'between steps' });
    });
  });
}

const killsByPhase: Record<string, number> = {};
let lives = 0;
for (;;) {
  lives += 1;
  const { finished, killedIn } = await life();
  if (finished) break;
  if (killedIn !== undefined) killsByPhase[killedIn] = (killsByPhase[killedIn] ?? 0) + 1;
}

// Verification, from the file the killed processes left.
const store = new SqliteSessionStore({ path });
let roundTrips = 0;
let loadFailures = 0;
let unknownOutcomes = 0;
let lostConfirmations = 0;
let runsWithoutConfirmation = 0;
const calls = new Map<string, { call: ToolCallBlock; result: ToolResultBlock | undefined }>();
const confirmedIds = new Set<string>();
for (let index = 0; index < SESSIONS; index++) {
  const sessionId = `session-${index}`;
  try {
    const stored = await store.load(sessionId);
    for (const message of stored?.state.context ?? []) {
      if (message.role === 'assistant' && message.finishedReason === 'completed') roundTrips += 1;
      if (typeof message.content === 'string') continue;
      for (const block of message.content) {
        if (block.type === 'tool_call') calls.set(block.id, { call: block, result: undefined });
        if (block.type !== 'tool_result') continue;
        const entry = calls.get(block.id);
        if (entry !== undefined) entry.result = block;
        if (block.state === 'interrupted' && block.output === agentTexts.outcomeUnknown) {
          unknownOutcomes += 1;
        }
      }
    }
    for (const record of await store.listAudit(sessionId)) {
      if (record.decision === 'confirmed') confirmedIds.add(record.toolCallId);
    }
  } catch {
    loadFailures += 1;
  }
}
// A confirmation the runner acknowledged must be in the state and on record.
const acks = side.prepare<[], { tool_call_id: string }>('SELECT tool_call_id FROM acks').all();
for (const { tool_call_id: id } of acks) {
  const entry = calls.get(id);
  if (entry?.call.state !== 'finished' || !confirmedIds.has(id)) lostConfirmations += 1;
}
const attempts = side
  .prepare<[], { id: string; runs: number }>(
    'SELECT tool_call_id AS id, count(*) AS runs FROM tool_attempts GROUP BY tool_call_id',
  )
  .all();
const doubleRuns = attempts.filter((row) => row.runs > 1).length;
// A result the tool produced must come from a run the side table saw.
const ran = new Set(attempts.map((row) => row.id));
const resultsWithoutRun = [...calls.values()].filter(
  ({ call, result }) => result?.state === 'success' && !ran.has(call.id),
).length;
for (const { id } of attempts)
  if (!confirmedIds.has(id) || !calls.has(id)) runsWithoutConfirmation += 1;
const violations = side
  .prepare<[], { n: number }>('SELECT count(*) AS n FROM tool_violations')
  .get();
await store.close();
side.close();
rmSync(worker, { force: true });
rmSync(directory, { recursive: true, force: true });

const report = {
  roundTrips,
  sessions: SESSIONS,
  processes: lives,
  kills: lives - 1,
  killsByPhase,
  executions: attempts.length,
  doubleRuns,
  primaryKeyViolations: violations?.n ?? -1,
  acknowledgedConfirmations: acks.length,
  lostConfirmations,
  runsWithoutConfirmation,
  resultsWithoutRun,
  closedAsOutcomeUnknown: unknownOutcomes,
  loadFailures,
};
const ok =
  doubleRuns === 0 &&
  report.primaryKeyViolations === 0 &&
  lostConfirmations === 0 &&
  runsWithoutConfirmation === 0 &&
  resultsWithoutRun === 0 &&
  loadFailures === 0 &&
  roundTrips >= ROUNDS;
if (values.json) {
  console.log(JSON.stringify({ ...report, ok }));
} else {
  console.log(
    `crash test (persist '${values.persist}'): ${roundTrips} round trips on ${SESSIONS} sessions, ${report.kills} SIGKILLs`,
  );
  console.log(`  kills by phase: ${JSON.stringify(killsByPhase)}`);
  console.log(
    `  tool executions: ${report.executions}, double runs: ${doubleRuns}, PK violations: ${report.primaryKeyViolations}`,
  );
  console.log(
    `  confirmations acknowledged: ${acks.length}, lost: ${lostConfirmations}; runs without a recorded confirmation: ${runsWithoutConfirmation}; results without a run: ${resultsWithoutRun}`,
  );
  console.log(
    `  calls closed as "outcome unknown": ${unknownOutcomes}; sessions that failed to load: ${loadFailures}`,
  );
  console.log(`  ${ok ? 'OK' : 'VIOLATION'}`);
}
process.exitCode = ok ? 0 : 1;
