// A child process of exactly-once.int.test.ts: it opens the store, says
// "ready", and for every "go" line answers the named parked reply at the
// given moment, reporting whether it won. Its write_file tool records every
// run in side tables of the test schema, written by the tool body itself, so
// a double run shows up whatever the runner believes.
//
//   node --conditions=@parley/source --import tsx packages/store-postgres/test/resume-worker.ts <url> <schema> <worker name>
// (the test runs it bundled: see test-support/worker-pool.ts)
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { ParleyError, Sessions, Toolkit, parseInputEvent, tool } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { Pool, escapeIdentifier } from 'pg';
import { PostgresSessionStore } from '../src/index.js';

const [connectionString = '', schema = '', worker = ''] = process.argv.slice(2);
if (connectionString === '' || schema === '' || worker === '') {
  throw new Error('usage: <url> <schema> <worker name>');
}
const quoted = escapeIdentifier(schema);
const pool = new Pool({ connectionString, max: 3 });

const writeFile = tool({
  name: 'write_file',
  description: 'Write a file.',
  input: z.object({ path: z.string(), content: z.string() }),
  execute: async (_input, context) => {
    const values = [context.toolCallId, worker];
    await pool.query(`INSERT INTO ${quoted}.tool_attempts VALUES ($1, $2)`, values);
    try {
      await pool.query(`INSERT INTO ${quoted}.tool_executions VALUES ($1, $2)`, values);
    } catch {
      await pool.query(`INSERT INTO ${quoted}.tool_violations VALUES ($1, $2)`, values);
    }
    return 'written';
  },
});

const store = new PostgresSessionStore({ pool, schema });
await store.migrate();
const sessions = new Sessions({
  store,
  agent: {
    model: new ScriptedModel([{ text: 'done' }], { repeatLast: true }),
    toolkit: new Toolkit([writeFile]),
  },
});

const goLine = z.object({ sessionId: z.string(), event: z.unknown(), startAt: z.number() });
type Go = z.infer<typeof goLine>;

async function answer({ sessionId, event, startAt }: Go): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  try {
    await sessions.reply(sessionId, parseInputEvent(event), { approver: worker });
    return 'won';
  } catch (error) {
    return error instanceof ParleyError ? error.name : `unexpected: ${String(error)}`;
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const go = goLine.parse(JSON.parse(line));
  void answer(go).then((outcome) => {
    process.stdout.write(`${JSON.stringify({ sessionId: go.sessionId, outcome })}\n`);
  });
});
lines.on('close', () => {
  void store.close().then(() => pool.end());
});
process.stdout.write('ready\n');
