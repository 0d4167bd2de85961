// A retry after a `parley serve` killed mid-request, on SQLite and on
// Postgres: the same Idempotency-Key gets through once the dead process's
// claim is over, and nothing runs twice. The killed request's reply had
// started, so the retry does not run it again: it gets the events the
// first attempt stored (text/event-stream), or 409
// idempotent_request_interrupted (JSON).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, escapeIdentifier } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, readFrames, startServeNode } from './serve-node.js';
import type { ServeNode } from './serve-node.js';
import { parleyCommand } from './tmux.js';

type ToolCall = { id: string; name: string; input: string };
type Waiting = { replyId: string; toolCalls: ToolCall[] };
type Backend = {
  name: string;
  storage: () => Promise<Record<string, string>>;
  drop: () => Promise<void>;
};

const LEASE_MS = 1_500;
const sse = { accept: 'text/event-stream' };
const pgUrl = process.env.PARLEY_PG_URL ?? '';
if (pgUrl === '') {
  if (process.env.CI !== undefined) {
    throw new Error('PARLEY_PG_URL must be set in CI (.ci/services exports it).');
  }
  console.warn(
    'Skipping the Postgres variant of the killed-mid-request test: PARLEY_PG_URL is not set ' +
      '(e.g. postgres://postgres@127.0.0.1:5432/test).',
  );
}

const sqlite = (): Backend => {
  const data = mkdtempSync(join(tmpdir(), 'parley-idem-'));
  return {
    name: 'SQLite',
    storage: () => Promise.resolve({ data }),
    drop: () => {
      rmSync(data, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
};

const postgres = (): Backend => {
  const database = `parley_idem_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
  let admin: Pool | undefined;
  return {
    name: 'Postgres',
    storage: async () => {
      admin ??= new Pool({ connectionString: pgUrl, max: 1 });
      await admin.query(`CREATE DATABASE ${escapeIdentifier(database)}`);
      const address = new URL(pgUrl);
      address.pathname = `/${database}`;
      return { db: address.toString() };
    },
    drop: async () => {
      await admin?.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(database)} WITH (FORCE)`);
      await admin?.end();
    },
  };
};

const backends: { make: () => Backend; skip: boolean }[] = [
  { make: sqlite, skip: false },
  { make: postgres, skip: pgUrl === '' },
];

describe.each(backends)('parley serve, killed mid-request', ({ make, skip }) => {
  const backend = make();
  const folder = mkdtempSync(join(tmpdir(), 'parley-idem-config-'));
  const nodes: ServeNode[] = [];
  let storage: Record<string, string> = {};
  let token = '';

  function keysCreate(principal: string): string {
    const [command = 'node', ...rest] = parleyCommand;
    const where = storage.db === undefined ? ['--data', storage.data ?? ''] : ['--db', storage.db];
    const run = spawnSync(command, [...rest, 'keys', 'create', principal, ...where], {
      encoding: 'utf8',
    });
    const made = run.stdout.split('\n').find((line) => line.startsWith('pk_'));
    if (made === undefined) throw new Error(`no token printed: ${run.stderr}`);
    return made;
  }

  async function start(pace: string): Promise<ServeNode> {
    const config = join(folder, 'parley.config.json');
    writeFileSync(config, JSON.stringify({ ...storage, leaseMs: LEASE_MS, graceMs: 500 }));
    const node = await startServeNode(
      ['--config', config, '--model', 'scripted:demo', '--port', '0'],
      { ...process.env, PARLEY_DEMO_PACE_MS: pace },
    );
    nodes.push(node);
    return node;
  }

  /** Kills `node` with SIGKILL and waits for it to be gone. */
  async function kill(node: ServeNode): Promise<void> {
    const died = new Promise((resolve) => node.process.once('exit', resolve));
    node.process.kill('SIGKILL');
    await died;
  }

  /**
   * Sends `send` until its answer is neither 409 idempotent_request_running
   * nor session_busy (the dead claim, or the session's lease, not yet over).
   */
  async function untilOver(send: () => Promise<Response>) {
    const waitingCodes = new Set(['idempotent_request_running', 'session_busy']);
    const codes: string[] = [];
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const response = await send();
      const text = await response.text();
      const code =
        response.status === 200 ? '' : ((JSON.parse(text) as { code?: string }).code ?? '');
      if (!waitingCodes.has(code)) return { status: response.status, code, text };
      // Both say when to try again.
      expect(Number(response.headers.get('retry-after')), code).toBeGreaterThanOrEqual(1);
      codes.push(code);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`the retry never got through: ${codes.join(',')}`);
  }

  beforeAll(async () => {
    if (skip) return;
    storage = await backend.storage();
    token = keysCreate('alice');
  }, 60_000);

  afterAll(async () => {
    for (const { process: child } of nodes) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await Promise.all(
      nodes.map(({ process: child }) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('exit', resolve))
          : Promise.resolve(),
      ),
    );
    rmSync(folder, { recursive: true, force: true });
    if (!skip) await backend.drop();
  }, 30_000);

  it.skipIf(skip)(
    `${backend.name}: a retried message is not run again: stored once, its events given back`,
    async () => {
      const first = await start('40');
      const created = await call(first, 'POST', '/v1/sessions', { token });
      const { id } = (await created.json()) as { id: string };
      const message = { input: 'hello' };
      const headers = { ...sse, 'idempotency-key': 'message-1' };

      // The message's reply streams slowly; the process dies in the middle of it.
      const sending = await call(first, 'POST', `/v1/sessions/${id}/replies`, {
        token,
        body: message,
        headers,
      });
      expect(sending.status).toBe(200);
      let count = 0;
      const seen = await readFrames(sending, () => ++count >= 3);
      await kill(first);

      const second = await start('2');
      const retry = (accept: Record<string, string>) =>
        call(second, 'POST', `/v1/sessions/${id}/replies`, {
          token,
          body: message,
          headers: { ...accept, 'idempotency-key': 'message-1' },
        });
      // Once the dead claim is over: 409 interrupted, the reply not run again.
      const settled = await untilOver(() => retry({}));
      expect([settled.status, settled.code], settled.text).toEqual([
        409,
        'idempotent_request_interrupted',
      ]);
      // What is known of it: cut part way by the kill, so not known.
      expect(JSON.parse(settled.text)).toMatchObject({ outcome: 'unknown' });
      // With text/event-stream: the events the first attempt stored, from its
      // first one, then a closing frame saying it was interrupted and where to look.
      const replayed = await readFrames(await retry(sse), () => false);
      // (An event streamed just before the kill may not have been stored.)
      expect(replayed[0]).toEqual(seen[0]);
      expect(replayed[0]?.event).toBe('REPLY_START');
      expect(replayed.filter((frame) => frame.event === 'REPLY_START')).toHaveLength(1);
      const closing = replayed.at(-1);
      expect(closing?.event).toBe('STREAM_CLOSED');
      expect(JSON.parse(closing?.data ?? '')).toMatchObject({
        reason: 'idempotent_request_interrupted',
        outcome: 'unknown',
        location: `/v1/sessions/${id}`,
      });
      const again = await retry({});
      expect(((await again.json()) as { code?: string }).code).toBe(
        'idempotent_request_interrupted',
      );

      // The message is stored once, and no second reply was started.
      const { messages } = (await (
        await call(second, 'GET', `/v1/sessions/${id}/messages`, { token })
      ).json()) as { messages: { role: string }[] };
      expect(messages.filter((entry) => entry.role === 'user')).toHaveLength(1);
      expect(messages.filter((entry) => entry.role === 'assistant')).toHaveLength(1);
      // The session goes on.
      const next = await untilOver(() =>
        call(second, 'POST', `/v1/sessions/${id}/replies`, {
          token,
          body: { input: 'hello again' },
          headers: { 'idempotency-key': 'message-2' },
        }),
      );
      expect(next.status, next.text).toBe(200);
      await kill(second);
    },
    90_000,
  );

  it.skipIf(skip)(
    `${backend.name}: a retried answer is not run again, and the call it answered ran once`,
    async () => {
      const first = await start('40');
      const created = await call(first, 'POST', '/v1/sessions', { token });
      const { id } = (await created.json()) as { id: string };
      const opened = await readFrames(
        await call(first, 'POST', `/v1/sessions/${id}/replies`, {
          token,
          body: { input: 'hello' },
          headers: sse,
        }),
        () => false,
      );
      expect(opened.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
      const summary = (await (
        await call(first, 'GET', `/v1/sessions/${id}`, { token })
      ).json()) as {
        waiting: Waiting;
      };
      const parked = summary.waiting;
      const answer = {
        input: {
          type: 'USER_CONFIRM_RESULT',
          replyId: parked.replyId,
          confirmResults: parked.toolCalls.map(({ id: callId, name, input }) => ({
            confirmed: true,
            toolCall: {
              type: 'tool_call',
              id: callId,
              name,
              input,
              state: 'asking',
              suggestedRules: [],
            },
          })),
        },
      };
      const headers = { ...sse, 'idempotency-key': 'confirm-1' };

      // The answer's reply streams slowly; the process dies in the middle of it.
      const answering = await call(first, 'POST', `/v1/sessions/${id}/replies`, {
        token,
        body: answer,
        headers,
      });
      expect(answering.status).toBe(200);
      let count = 0;
      const seen = await readFrames(answering, () => ++count >= 3);
      await kill(first);

      // Started again on the same data: the dead claim is held until its lease is over.
      const second = await start('2');
      const retry = (accept: Record<string, string>) =>
        call(second, 'POST', `/v1/sessions/${id}/replies`, {
          token,
          body: answer,
          headers: { ...accept, 'idempotency-key': 'confirm-1' },
        });
      // The retry took the claim over; the reply had started, so it is not
      // run again: the events the first attempt stored, then the stream ends.
      const settled = await untilOver(() => retry(sse));
      expect(settled.status, settled.text).toBe(200);
      const replayed = await readFrames(await retry(sse), () => false);
      expect(replayed[0]).toEqual(seen[0]);
      expect(replayed.filter((frame) => frame.event === 'REPLY_START')).toHaveLength(0);
      const json = await retry({});
      expect(json.status).toBe(409);
      expect(((await json.json()) as { code?: string }).code).toBe(
        'idempotent_request_interrupted',
      );

      // The call ran at most once: one call block, at most one result, not repeated by the retry.
      const { messages } = (await (
        await call(second, 'GET', `/v1/sessions/${id}/messages`, { token })
      ).json()) as { messages: { content: string | { type: string; id?: string }[] }[] };
      const callId = parked.toolCalls[0]?.id ?? '';
      const blocks = messages.flatMap((entry) =>
        typeof entry.content === 'string' ? [] : entry.content,
      );
      const of = (type: string) =>
        blocks.filter((block) => block.type === type && block.id === callId);
      expect(of('tool_call')).toHaveLength(1);
      expect(of('tool_result').length).toBeLessThanOrEqual(1);

      // The session goes on.
      const next = await untilOver(() =>
        call(second, 'POST', `/v1/sessions/${id}/replies`, {
          token,
          body: { input: 'hello again' },
          headers: { 'idempotency-key': 'after-answer' },
        }),
      );
      expect(next.status, next.text).toBe(200);
      await kill(second);
    },
    90_000,
  );
});
