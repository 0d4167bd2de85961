// `parley serve` as a process, over HTTP: a real client (fetch) and a
// well-kept SSE parser (eventsource-parser), the scripted demo as the model.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFrames, settles } from './serve-node.js';
import type { Frame } from './serve-node.js';
import { parleyCommand } from './tmux.js';

type ToolCall = { id: string; name: string; input: string; awaiting: string };
type Waiting = { replyId: string; toolCalls: ToolCall[] };

const data = mkdtempSync(join(tmpdir(), 'parley-serve-'));
const environment = { ...process.env, PARLEY_DEMO_PACE_MS: '2' };
let child: ChildProcess | undefined;
let url = '';
let login = '';
let loginName = '';
let bob = '';
let revoked = '';

function parley(args: string[]): string {
  const [command = 'node', ...rest] = parleyCommand;
  const run = spawnSync(command, [...rest, ...args], { encoding: 'utf8', env: environment });
  expect(run.status).toBe(0);
  return run.stdout;
}

/** The token line of `parley keys create`. */
function createKey(principal: string): string {
  const token = parley(['keys', 'create', principal, '--data', data])
    .split('\n')
    .find((line) => line.startsWith('pk_'));
  if (token === undefined) throw new Error('no token printed');
  return token;
}

/** Starts `parley serve` and resolves once it printed its URL and login token. */
function startServe(): Promise<void> {
  const [command = 'node', ...rest] = parleyCommand;
  const started = spawn(
    command,
    [...rest, 'serve', '--model', 'scripted:demo', '--port', '0', '--data', data],
    { env: environment, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child = started;
  return new Promise((resolve, reject) => {
    let output = '';
    started.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const address = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      const [, name, token] = /\(as (\S+), this run only\): (\S+)/.exec(output) ?? [];
      if (address !== undefined && name !== undefined && token !== undefined) {
        url = address;
        login = token;
        loginName = name;
        resolve();
      }
    });
    started.once('exit', (code) => reject(new Error(`parley serve exited (${code}): ${output}`)));
  });
}

function request(
  method: string,
  path: string,
  options: {
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  return fetch(`${url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** Reads SSE frames until `enough` says so (or the stream ends), then lets go of the body. */
const frames = (response: Response, enough: (frame: Frame) => boolean = () => false) =>
  readFrames(response, enough);

async function waiting(id: string): Promise<Waiting> {
  const summary = (await (await request('GET', `/v1/sessions/${id}`, { token: login })).json()) as {
    waiting: Waiting | null;
  };
  if (summary.waiting === null) throw new Error('nothing is waiting');
  return summary.waiting;
}

function confirm(parked: Waiting, toolCalls = parked.toolCalls, replyId = parked.replyId) {
  return {
    input: {
      type: 'USER_CONFIRM_RESULT',
      replyId,
      confirmResults: toolCalls.map(({ id, name, input }) => ({
        confirmed: true,
        toolCall: { type: 'tool_call', id, name, input, state: 'asking', suggestedRules: [] },
      })),
    },
  };
}

async function status(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { code?: string };
  return [response.status, body.code ?? ''];
}

describe('parley serve', () => {
  beforeAll(async () => {
    bob = createKey('bob');
    revoked = createKey('eve');
    const id = revoked.split('_')[1] ?? '';
    expect(parley(['keys', 'revoke', id, '--data', data])).toContain(`Revoked key ${id}`);
    await startServe();
  }, 60_000);

  afterAll(() => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  });

  it('parks a reply over SSE, refuses hostile input, runs the confirmed call once, and replays after a disconnect', async () => {
    const created = await request('POST', '/v1/sessions', { token: login });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const first = await frames(
      await request('POST', `/v1/sessions/${id}/replies`, {
        token: login,
        body: { input: 'hello' },
        headers: { accept: 'text/event-stream' },
      }),
    );
    expect(first.map((frame) => frame.id)).toEqual(first.map((_, index) => index + 1));
    expect(first.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    const parked = await waiting(id);
    const before = await (
      await request('GET', `/v1/sessions/${id}/messages`, { token: login })
    ).text();

    expect(await status(await request('GET', `/v1/sessions/${id}`))).toEqual([
      401,
      'unauthenticated',
    ]);
    expect(await status(await request('GET', `/v1/sessions/${id}`, { token: 'pk_nope' }))).toEqual([
      401,
      'unauthenticated',
    ]);
    expect(await status(await request('GET', `/v1/sessions/${id}`, { token: revoked }))).toEqual([
      401,
      'unauthenticated',
    ]);
    expect(await status(await request('GET', `/v1/sessions/${id}`, { token: bob }))).toEqual([
      404,
      'session_not_found',
    ]);
    const post = (body: unknown) =>
      request('POST', `/v1/sessions/${id}/replies`, { token: login, body });
    expect(await status(await post('{"input": "unclosed'))).toEqual([400, 'invalid_request']);
    expect(await status(await post({ input: 'x'.repeat(1024 * 1024 + 1) }))).toEqual([
      413,
      'body_too_large',
    ]);
    expect(await status(await post(confirm(parked, parked.toolCalls, 'another-reply')))).toEqual([
      409,
      'stale_reply',
    ]);
    const unknown = parked.toolCalls.map((call) => ({ ...call, id: 'no-such-call' }));
    expect(await status(await post(confirm(parked, unknown)))).toEqual([400, 'unknown_tool_call']);
    expect(
      await status(
        await request('GET', `/v1/sessions/${id}/events`, {
          token: login,
          headers: { 'last-event-id': '7 OR 1=1' },
        }),
      ),
    ).toEqual([400, 'invalid_request']);
    const after = await (
      await request('GET', `/v1/sessions/${id}/messages`, { token: login })
    ).text();
    expect(after).toBe(before);

    // Twenty answers at once: one wins, the others get 409, the call runs once.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        request('POST', `/v1/sessions/${id}/replies`, {
          token: login,
          body: confirm(parked),
          headers: { accept: 'text/event-stream' },
        }),
      ),
    );
    const statuses = answers.map((response) => response.status);
    expect(statuses.filter((code) => code === 200)).toHaveLength(1);
    expect(statuses.filter((code) => code === 409)).toHaveLength(19);
    const winner = answers.find((response) => response.status === 200);
    for (const response of answers) if (response !== winner) await response.body?.cancel();
    if (winner === undefined) throw new Error('no answer won');

    // The winner's client leaves after three frames; the reply goes on.
    let count = 0;
    const seen = await frames(winner, () => ++count >= 3);
    const lastSeen = seen.at(-1)?.id ?? 0;
    expect(lastSeen).toBe(first.length + 3);
    const rest = await frames(
      await request('GET', `/v1/sessions/${id}/events`, {
        token: login,
        headers: { 'last-event-id': String(lastSeen) },
      }),
      settles,
    );
    expect(rest.map((frame) => frame.id)).toEqual(rest.map((_, index) => lastSeen + 1 + index));
    expect(rest.some(settles)).toBe(true);

    const all = await frames(
      await request('GET', `/v1/sessions/${id}/events?after=0`, { token: login }),
      (frame) => frame.id === (rest.at(-1)?.id ?? 0),
    );
    expect(all.map((frame) => frame.id)).toEqual(all.map((_, index) => index + 1));
    const executions = all.filter(
      (frame) =>
        frame.event === 'TOOL_RESULT_END' &&
        (JSON.parse(frame.data) as { toolCallId: string }).toolCallId === parked.toolCalls[0]?.id,
    );
    expect(executions).toHaveLength(1);
    const audit = (await (
      await request('GET', `/v1/sessions/${id}/audit`, { token: login })
    ).json()) as {
      records: { decision: string; approver: string | null }[];
    };
    const confirmed = audit.records.filter((record) => record.decision === 'confirmed');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]?.approver).toBe(loginName);
  }, 60_000);

  it('runs the curl examples of docs/guides/serving.md as written', () => {
    const guide = readFileSync(
      fileURLToPath(new URL('../../../docs/guides/serving.md', import.meta.url)),
      'utf8',
    );
    const fromCurl = guide.slice(
      guide.indexOf('## Answer from curl'),
      guide.indexOf('## Three nodes on Postgres'),
    );
    const examples = [...fromCurl.matchAll(/```sh\n([\s\S]*?)```\n\n```\n([\s\S]*?)```/g)].map(
      ([, script = '', output = '']) => ({ script, output }),
    );
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const marker = '@@example-done@@';
    const script = examples.map(({ script }) => `${script}echo ${marker}\n`).join('');
    const run = spawnSync('bash', ['-u', '-c', script], {
      encoding: 'utf8',
      env: { ...environment, URL: url, TOKEN: login },
    });
    expect(run.stderr).toBe('');
    const outputs = run.stdout.split(`${marker}\n`).slice(0, examples.length);
    expect(outputs).toEqual(examples.map(({ output }) => output));
  }, 30_000);

  it('stops on SIGTERM', async () => {
    const running = child;
    if (running === undefined) throw new Error('not started');
    const exited = new Promise<number | null>((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
});
