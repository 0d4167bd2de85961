// Three `parley serve` processes on one Postgres database, over real HTTP:
// a reply parked on node 1 is answered on node 2 and watched live on node 3;
// node 2 is killed mid-reply and node 3 continues the session once its lease
// has run out; a replay from every Last-Event-ID, on any node, gives every
// later event exactly once, in order.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Pool, escapeIdentifier } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call, readFrames, settles, startServeNode } from './serve-node.js';
import type { Frame, ServeNode } from './serve-node.js';
import { parleyCommand } from './tmux.js';

const url = process.env.PARLEY_PG_URL ?? '';
if (url === '') {
  if (process.env.CI !== undefined) {
    throw new Error('PARLEY_PG_URL must be set in CI (.ci/services exports it).');
  }
  console.warn(
    'Skipping the three-node serve test: PARLEY_PG_URL is not set ' +
      '(e.g. postgres://postgres@127.0.0.1:5432/test; .ci/services sets it in CI).',
  );
}

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.string(),
  awaiting: z.string(),
});
const summarySchema = z.object({
  waiting: z.object({ replyId: z.string(), toolCalls: z.array(toolCallSchema) }).nullable(),
});
const problemSchema = z.object({ code: z.string() });
type Waiting = NonNullable<z.infer<typeof summarySchema>['waiting']>;

/** The lease of a running reply, short so that the test waits little after the kill. */
const LEASE_MS = 3_000;

/** The answer to every call `parked` waits on: confirmed, or denied with a reason. */
function answer(parked: Waiting, confirmed: boolean) {
  return {
    input: {
      type: 'USER_CONFIRM_RESULT',
      replyId: parked.replyId,
      confirmResults: parked.toolCalls.map(({ id, name, input }) => ({
        confirmed,
        ...(confirmed ? {} : { reason: 'not today' }),
        toolCall: { type: 'tool_call', id, name, input, state: 'asking', suggestedRules: [] },
      })),
    },
  };
}

/** Whether a frame's numbers go up by one, or jump up (a gap left by a crash), never down or twice. */
const increasing = (frames: Frame[]): boolean =>
  frames.every((frame, index) => index === 0 || frame.id > (frames[index - 1]?.id ?? 0));

describe.skipIf(url === '')('three parley serve nodes on one Postgres', () => {
  const database = `parley_nodes_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
  const folder = mkdtempSync(join(tmpdir(), 'parley-nodes-'));
  const nodes: ServeNode[] = [];
  let admin: Pool | undefined;
  let db = '';
  let alice = '';

  function parley(args: string[]): string {
    const [command = 'node', ...rest] = parleyCommand;
    const run = spawnSync(command, [...rest, ...args], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return run.stdout;
  }

  function node(index: number): ServeNode {
    const found = nodes[index];
    if (found === undefined) throw new Error(`no node ${index + 1}`);
    return found;
  }

  beforeAll(async () => {
    admin = new Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE DATABASE ${escapeIdentifier(database)}`);
    const address = new URL(url);
    address.pathname = `/${database}`;
    db = address.toString();
    // The keys are made on the database before any node runs (parley keys --db).
    alice =
      parley(['keys', 'create', 'alice', '--db', db])
        .split('\n')
        .find((line) => line.startsWith('pk_')) ?? '';
    const config = join(folder, 'parley.config.json');
    writeFileSync(config, JSON.stringify({ db, leaseMs: LEASE_MS, graceMs: 1_000 }));
    // Node 2 streams slowly, so that it can be killed mid-reply.
    for (const pace of ['2', '30', '2']) {
      nodes.push(
        await startServeNode(['--config', config, '--model', 'scripted:demo', '--port', '0'], {
          ...process.env,
          PARLEY_DEMO_PACE_MS: pace,
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(
      nodes.map(async ({ process: child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    await admin?.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(database)} WITH (FORCE)`);
    await admin?.end();
    rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  async function waiting(on: ServeNode, id: string): Promise<Waiting> {
    const response = await call(on, 'GET', `/v1/sessions/${id}`, { token: alice });
    const { waiting } = summarySchema.parse(await response.json());
    if (waiting === null) throw new Error('nothing is waiting');
    return waiting;
  }

  it('runs the three-node examples of docs/guides/serving.md as written', () => {
    const guide = readFileSync(
      fileURLToPath(new URL('../../../docs/guides/serving.md', import.meta.url)),
      'utf8',
    );
    const section = guide.slice(guide.indexOf('run as they are against three nodes'));
    const examples = [...section.matchAll(/```sh\n([\s\S]*?)```\n\n```\n([\s\S]*?)```/g)].map(
      ([, script = '', output = '']) => ({ script, output }),
    );
    expect(examples).toHaveLength(2);
    const marker = '@@example-done@@';
    const script = examples.map(({ script }) => `${script}echo ${marker}\n`).join('');
    const run = spawnSync('bash', ['-u', '-c', script], {
      encoding: 'utf8',
      env: {
        ...process.env,
        URL1: node(0).url,
        URL2: node(1).url,
        URL3: node(2).url,
        TOKEN: alice,
      },
    });
    expect(run.stderr).toBe('');
    const outputs = run.stdout.split(`${marker}\n`).slice(0, examples.length);
    expect(outputs).toEqual(examples.map(({ output }) => output));
  }, 30_000);

  it('parks on node 1, answers on node 2, watches on node 3, and continues after node 2 dies', async () => {
    expect(alice).toMatch(/^pk_/);
    // Node 1: a session, and its first reply, which parks.
    const created = await call(node(0), 'POST', '/v1/sessions', { token: alice });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const first = await readFrames(
      await call(node(0), 'POST', `/v1/sessions/${id}/replies`, {
        token: alice,
        body: { input: 'hello' },
        headers: { accept: 'text/event-stream' },
      }),
      settles,
    );
    expect(first.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    const parkedAt = first.at(-1)?.id ?? 0;

    // Node 3 follows the session from there on.
    const watched: Frame[] = [];
    let sawDelta: (() => void) | undefined;
    const deltaSeen = new Promise<void>((resolve) => {
      sawDelta = resolve;
    });
    const watchResponse = await call(node(2), 'GET', `/v1/sessions/${id}/events`, {
      token: alice,
      headers: { 'last-event-id': String(parkedAt) },
    });
    expect(watchResponse.status).toBe(200);
    let parks = 0;
    // The stream ends at the second park, or when the test lets go of it.
    const watching = readFrames(
      watchResponse,
      (frame) => frame.event === 'REQUIRE_USER_CONFIRM' && ++parks === 2,
      (frame) => {
        watched.push(frame);
        if (parks === 1 && frame.event === 'TEXT_BLOCK_DELTA') sawDelta?.();
      },
    ).catch(() => watched);

    // Node 2 answers the call parked on node 1; its reply parks again.
    const parked = await waiting(node(1), id);
    const second = await readFrames(
      await call(node(1), 'POST', `/v1/sessions/${id}/replies`, {
        token: alice,
        body: answer(parked, true),
        headers: { accept: 'text/event-stream' },
      }),
      settles,
    );
    expect(second[0]?.id).toBe(parkedAt + 1);
    expect(second.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');

    // Node 2 gets the denial and streams its next text; node 3 sees it stream,
    // and node 2 is killed before the reply is over.
    const again = await waiting(node(1), id);
    expect(again.toolCalls.map((toolCall) => toolCall.id)).not.toEqual(
      parked.toolCalls.map((toolCall) => toolCall.id),
    );
    const dying = await call(node(1), 'POST', `/v1/sessions/${id}/replies`, {
      token: alice,
      body: answer(again, false),
      headers: { accept: 'text/event-stream' },
    });
    expect(dying.status).toBe(200);
    const shownByNode2: Frame[] = [];
    const dyingRead = readFrames(
      dying,
      () => false,
      (frame) => shownByNode2.push(frame),
    ).catch(() => shownByNode2);
    await deltaSeen;
    const killed = new Promise((resolve) => node(1).process.once('exit', resolve));
    node(1).process.kill('SIGKILL');
    await killed;
    await dyingRead;
    const settledShown = shownByNode2.some(settles);
    expect(settledShown).toBe(false);

    // Node 3: the session is busy while node 2's lease lasts, then it goes on.
    const busy = await call(node(2), 'POST', `/v1/sessions/${id}/replies`, {
      token: alice,
      body: { input: 'are you there?' },
    });
    expect(busy.status).toBe(409);
    expect(problemSchema.parse(await busy.json()).code).toBe('session_busy');
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    let continued: Response | undefined;
    for (let attempt = 0; attempt < 40 && continued === undefined; attempt += 1) {
      await sleep(LEASE_MS / 6);
      const response = await call(node(2), 'POST', `/v1/sessions/${id}/replies`, {
        token: alice,
        body: { input: 'are you there?' },
        headers: { accept: 'text/event-stream' },
      });
      if (response.status === 200) continued = response;
      else {
        expect(problemSchema.parse(await response.json()).code).toBe('session_busy');
      }
    }
    if (continued === undefined) throw new Error('node 3 never took the session over');
    const third = await readFrames(continued, settles);
    expect(third.some(settles)).toBe(true);
    const lastId = third.at(-1)?.id ?? 0;

    // Node 3's watcher saw node 2's reply live: it saw a delta of the reply
    // node 2 never finished. Everything it saw is stored, in order, once.
    watchResponse.body?.cancel().catch(() => undefined);
    await Promise.race([watching, sleep(1_000)]);

    const all = await readFrames(
      await call(node(0), 'GET', `/v1/sessions/${id}/events?after=0`, { token: alice }),
      (frame) => frame.id === lastId,
    );
    expect(all.at(-1)?.id).toBe(lastId);
    expect(increasing(all)).toBe(true);
    // Numbers follow on by one, except one jump: the numbers node 2 had reserved.
    const jumps = all.filter(
      (frame, index) => index > 0 && frame.id !== (all[index - 1]?.id ?? 0) + 1,
    );
    expect(jumps.length).toBeLessThanOrEqual(1);
    expect(all.slice(0, first.length)).toEqual(first);
    const stored = new Map(all.map((frame) => [frame.id, frame]));
    expect(increasing(watched)).toBe(true);
    for (const frame of watched) expect(stored.get(frame.id)).toEqual(frame);
    expect(watched[0]?.id).toBe(parkedAt + 1);
    expect(
      watched.some(
        (frame) => frame.event === 'TEXT_BLOCK_DELTA' && frame.id > (second.at(-1)?.id ?? 0),
      ),
    ).toBe(true);
    // What node 3 ran follows everything stored before it.
    expect(third[0]?.id).toBeGreaterThan(Math.max(...shownByNode2.map((frame) => frame.id)));

    // A replay from every Last-Event-ID, on node 1 and node 3 in turn.
    const survivors = [node(0), node(2)];
    for (const [index, from] of [{ id: 0 }, ...all].entries()) {
      const on = survivors[index % survivors.length] ?? node(0);
      const expected = all.filter((frame) => frame.id > from.id);
      if (expected.length === 0) continue;
      const replay = await readFrames(
        await call(on, 'GET', `/v1/sessions/${id}/events`, {
          token: alice,
          headers: { 'last-event-id': String(from.id) },
        }),
        (frame) => frame.id >= lastId,
      );
      expect(replay).toEqual(expected);
    }
  }, 120_000);
});
