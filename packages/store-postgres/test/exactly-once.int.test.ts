// Exactly once, for real: 2 and then 20 OS processes answer the same parked
// reply at the same moment, against one Postgres schema. The tool records
// each run in side tables keyed by tool call id (written by the tool body,
// not by the runner); every call must have run exactly once, and every loser
// must have been told so with ConcurrentResumeError or StaleReplyError.
import { fileURLToPath } from 'node:url';
import { Sessions, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type { ToolCallBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { Pool, escapeIdentifier } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PostgresSessionStore } from '../src/index.js';
import { WorkerPool, bundleWorker } from '../../../test-support/worker-pool.js';

const url = process.env.PARLEY_PG_URL;
if (url === undefined || url === '') {
  console.warn(
    'Skipping the Postgres exactly-once test: PARLEY_PG_URL is not set ' +
      '(e.g. postgres://postgres@127.0.0.1:5432/test; .ci/services sets it in CI).',
  );
}

const WORKERS = 20;
const ROUNDS = 4;
const script = fileURLToPath(new URL('./resume-worker.ts', import.meta.url));

describe.skipIf(url === undefined || url === '')(
  'exactly once across OS processes (Postgres)',
  () => {
    const connectionString = url ?? '';
    const schema = `parley_once_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
    const quoted = escapeIdentifier(schema);
    let admin: Pool;
    let pool: WorkerPool;
    let store: PostgresSessionStore;
    let sessions: Sessions;
    let removeBundle: () => void = () => undefined;
    let calls = 0;

    beforeAll(async () => {
      admin = new Pool({ connectionString, max: 2 });
      store = await PostgresSessionStore.open({ connectionString, schema });
      await admin.query(`
      CREATE TABLE ${quoted}.tool_attempts (tool_call_id text NOT NULL, worker text NOT NULL);
      CREATE TABLE ${quoted}.tool_executions (tool_call_id text PRIMARY KEY, worker text NOT NULL);
      CREATE TABLE ${quoted}.tool_violations (tool_call_id text NOT NULL, worker text NOT NULL);`);
      const writeFile = tool({
        name: 'write_file',
        description: 'Write a file.',
        input: z.object({ path: z.string(), content: z.string() }),
        execute: () => 'written',
      });
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
      pool = await WorkerPool.start(bundle.file, WORKERS, (index) => [
        connectionString,
        schema,
        `worker-${index}`,
      ]);
    }, 120_000);

    afterAll(async () => {
      await pool?.stop();
      await store?.close();
      removeBundle();
      await admin?.query(`DROP SCHEMA IF EXISTS ${quoted} CASCADE`);
      await admin?.end();
    });

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

    async function executionsOf(callId: string): Promise<number> {
      const result = await admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${quoted}.tool_attempts WHERE tool_call_id = $1`,
        [callId],
      );
      return Number(result.rows[0]?.n ?? -1);
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
          for (const callId of callIds) expect(await executionsOf(callId)).toBe(1);
          const trail = await sessions.audit(sessionId);
          expect(trail.filter((r) => r.decision === 'confirmed')).toHaveLength(1);
          expect(trail.filter((r) => r.decision === 'executed')).toHaveLength(1);
          expect((await sessions.load(sessionId))?.state.reply).toBeNull();
        }
        const violations = await admin.query(
          `SELECT count(*)::int AS n FROM ${quoted}.tool_violations`,
        );
        expect(violations.rows).toStrictEqual([{ n: 0 }]);
        console.info(
          `exactly once (Postgres): ${count} processes x ${ROUNDS} rounds: ` +
            `${JSON.stringify(Object.fromEntries(tally))}, ${ROUNDS} executions, 0 double runs`,
        );
      }, 60_000);
    }
  },
);
