// Exactly once, for real: 2 and then 20 OS processes answer the same parked
// reply at the same moment, against one SQLite file. The tool records each
// run in side tables keyed by tool call id (written by the tool body, not by
// the runner); every call must have run exactly once, and every loser must
// have been told so with ConcurrentResumeError or StaleReplyError.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sessions, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type { ToolCallBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SqliteSessionStore } from '../src/index.js';
import { WorkerPool, bundleWorker } from '../../../test-support/worker-pool.js';

const WORKERS = 20;
const ROUNDS = 4;
const script = fileURLToPath(new URL('./resume-worker.ts', import.meta.url));

describe('exactly once across OS processes (SQLite)', () => {
  let directory: string;
  let path: string;
  let pool: WorkerPool;
  let store: SqliteSessionStore;
  let sessions: Sessions;
  let side: Database.Database;
  let removeBundle: () => void = () => undefined;
  let calls = 0;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'parley-exactly-once-'));
    path = join(directory, 'sessions.sqlite');
    store = new SqliteSessionStore({ path, synchronous: 'NORMAL' });
    side = new Database(path);
    side.exec(`
      CREATE TABLE tool_attempts (tool_call_id TEXT NOT NULL, worker TEXT NOT NULL);
      CREATE TABLE tool_executions (tool_call_id TEXT PRIMARY KEY, worker TEXT NOT NULL);
      CREATE TABLE tool_violations (tool_call_id TEXT NOT NULL, worker TEXT NOT NULL);`);
    const writeFile = tool({
      name: 'write_file',
      description: 'Write a file.',
      input: z.object({ path: z.string(), content: z.string() }),
      execute: () => 'written',
    });
    // Parks one write_file call per session, with an id no other session uses.
    const model = new ScriptedModel(
      [
        () => ({
          toolCalls: [
            { id: `call-${++calls}`, name: 'write_file', input: { path: 'a', content: 'b' } },
          ],
        }),
      ],
      { repeatLast: true },
    );
    sessions = new Sessions({ store, agent: { model, toolkit: new Toolkit([writeFile]) } });
    const bundle = await bundleWorker(script);
    removeBundle = bundle.remove;
    pool = await WorkerPool.start(bundle.file, WORKERS, (index) => [path, `worker-${index}`]);
  }, 120_000);

  afterAll(async () => {
    await pool?.stop();
    side?.close();
    await store?.close();
    removeBundle();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Parks a fresh session and has `count` workers approve it at once. */
  async function race(label: string, count: number) {
    const sessionId = `${label}-${globalThis.crypto.randomUUID()}`;
    await sessions.reply(sessionId, 'Write the note');
    const state = (await sessions.load(sessionId))?.state;
    const message = state?.context.at(-1);
    if (state?.reply == null || message === undefined || typeof message.content === 'string') {
      throw new Error('not parked');
    }
    const asking = message.content.filter(
      (block): block is ToolCallBlock => block.type === 'tool_call' && block.state === 'asking',
    );
    const event = userConfirmResultEvent({
      replyId: state.reply.replyId,
      confirmResults: asking.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    const outcomes = await pool.race(sessionId, event, count);
    return {
      sessionId,
      outcomes: outcomes.map((o) => o.outcome),
      callIds: asking.map((c) => c.id),
    };
  }

  function executionsOf(callId: string): number {
    const row = side
      .prepare<[string], { n: number }>(
        'SELECT count(*) AS n FROM tool_attempts WHERE tool_call_id = ?',
      )
      .get(callId);
    return row?.n ?? -1;
  }

  for (const count of [2, WORKERS]) {
    it(`lets exactly one of ${count} processes run the approved call, ${ROUNDS} times over`, async () => {
      const tally = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        const { sessionId, outcomes, callIds } = await race(`p${count}`, count);
        for (const outcome of outcomes) tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
        expect(outcomes.filter((outcome) => outcome === 'won')).toHaveLength(1);
        for (const outcome of outcomes.filter((o) => o !== 'won')) {
          expect(['ConcurrentResumeError', 'StaleReplyError']).toContain(outcome);
        }
        for (const callId of callIds) expect(executionsOf(callId)).toBe(1);
        const trail = await sessions.audit(sessionId);
        expect(trail.filter((r) => r.decision === 'confirmed')).toHaveLength(1);
        expect(trail.filter((r) => r.decision === 'executed')).toHaveLength(1);
        expect((await sessions.load(sessionId))?.state.reply).toBeNull();
      }
      const violations = side.prepare('SELECT count(*) AS n FROM tool_violations').get();
      expect(violations).toStrictEqual({ n: 0 });
      console.info(
        `exactly once (SQLite): ${count} processes x ${ROUNDS} rounds: ` +
          `${JSON.stringify(Object.fromEntries(tally))}, ${ROUNDS} executions, 0 double runs`,
      );
    }, 60_000);
  }
});
