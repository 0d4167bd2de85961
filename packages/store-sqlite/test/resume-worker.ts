// A child process of exactly-once.test.ts: it opens the store, says
// "ready", and for every "go" line answers the named parked reply at the
// given moment, reporting whether it won. Its write_file tool records every
// run in side tables of the same database file, written by the tool body
// itself, so a double run shows up whatever the runner believes.
//
//   node --conditions=@parley/source --import tsx packages/store-sqlite/test/resume-worker.ts <db path> <worker name>
// (the test runs it bundled: see test-support/worker-pool.ts)
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { ParleyError, Sessions, Toolkit, parseInputEvent, tool } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import Database from 'better-sqlite3';
import { SqliteSessionStore } from '../src/index.js';

const [path = '', worker = ''] = process.argv.slice(2);
if (path === '' || worker === '') throw new Error('usage: <db path> <worker name>');

const side = new Database(path, { timeout: 10_000 });
const attempt = side.prepare('INSERT INTO tool_attempts (tool_call_id, worker) VALUES (?, ?)');
const execution = side.prepare('INSERT INTO tool_executions (tool_call_id, worker) VALUES (?, ?)');
const violation = side.prepare('INSERT INTO tool_violations (tool_call_id, worker) VALUES (?, ?)');

const writeFile = tool({
  name: 'write_file',
  description: 'Write a file.',
  input: z.object({ path: z.string(), content: z.string() }),
  execute: (_input, context) => {
    attempt.run(context.toolCallId, worker);
    try {
      execution.run(context.toolCallId, worker);
    } catch {
      violation.run(context.toolCallId, worker);
    }
    return 'written';
  },
});

const store = new SqliteSessionStore({ path, synchronous: 'NORMAL' });
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
  void store.close().then(() => side.close());
});
process.stdout.write('ready\n');
