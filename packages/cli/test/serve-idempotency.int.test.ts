// A retry after a `parley serve` killed mid-request: the same Idempotency-Key
// gets through once the dead process's claim is over, and the call it
// answered runs at most once.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, readFrames, startServeNode } from './serve-node.js';
import type { ServeNode } from './serve-node.js';
import { parleyCommand } from './tmux.js';

type ToolCall = { id: string; name: string; input: string };
type Waiting = { replyId: string; toolCalls: ToolCall[] };

const LEASE_MS = 1_500;
const data = mkdtempSync(join(tmpdir(), 'parley-idem-'));
const nodes: ServeNode[] = [];

function createKey(principal: string): string {
  const [command = 'node', ...rest] = parleyCommand;
  const run = spawnSync(command, [...rest, 'keys', 'create', principal, '--data', data], {
    encoding: 'utf8',
  });
  const token = run.stdout.split('\n').find((line) => line.startsWith('pk_'));
  if (token === undefined) throw new Error(`no token printed: ${run.stderr}`);
  return token;
}

async function start(pace: string): Promise<ServeNode> {
  const config = join(data, 'parley.config.json');
  writeFileSync(config, JSON.stringify({ data, leaseMs: LEASE_MS, graceMs: 500 }));
  const node = await startServeNode(
    ['--config', config, '--model', 'scripted:demo', '--port', '0'],
    { ...process.env, PARLEY_DEMO_PACE_MS: pace },
  );
  nodes.push(node);
  return node;
}

describe('parley serve, killed mid-request', () => {
  afterAll(() => {
    for (const { process: child } of nodes) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(data, { recursive: true, force: true });
  });

  it('lets a retry with the same Idempotency-Key through, and runs the call at most once', async () => {
    const token = createKey('alice');
    const first = await start('40');
    const created = await call(first, 'POST', '/v1/sessions', { token });
    const { id } = (await created.json()) as { id: string };
    const sse = { accept: 'text/event-stream' };
    const opened = await readFrames(
      await call(first, 'POST', `/v1/sessions/${id}/replies`, {
        token,
        body: { input: 'hello' },
        headers: sse,
      }),
      () => false,
    );
    expect(opened.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    const summary = (await (await call(first, 'GET', `/v1/sessions/${id}`, { token })).json()) as {
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
    await readFrames(answering, () => ++count >= 3);
    const died = new Promise((resolve) => first.process.once('exit', resolve));
    first.process.kill('SIGKILL');
    await died;

    // Started again on the same data: the dead claim is held until its lease is over.
    const second = await start('2');
    const retry = () =>
      call(second, 'POST', `/v1/sessions/${id}/replies`, { token, body: answer, headers });
    // Until the claim (and the session's lease) is over: 409, the first still running.
    const waitingCodes = new Set(['idempotent_request_running', 'session_busy']);
    const codes: string[] = [];
    let settled: { status: number; code: string; text: string } | undefined;
    for (let attempt = 0; attempt < 40 && settled === undefined; attempt += 1) {
      const response = await retry();
      const text = await response.text();
      const code =
        response.status === 200 ? '' : ((JSON.parse(text) as { code?: string }).code ?? '');
      if (waitingCodes.has(code)) {
        codes.push(code);
        await new Promise((resolve) => setTimeout(resolve, 250));
      } else settled = { status: response.status, code, text };
    }
    if (settled === undefined) throw new Error(`the retry never got through: ${codes.join(',')}`);
    // The retry took the claim over and ran the request again: the core
    // refuses a second answer of the same call (the reply it answered is no
    // longer parked), and that refusal is the retry's answer.
    expect([settled.status, settled.code]).toEqual([409, 'stale_reply']);

    // The call ran at most once: its block is in the transcript once, not
    // repeated by the retry, and so is its result if the first process saved
    // one before it died (it runs ahead of what its client has seen).
    const messages = await (
      await call(second, 'GET', `/v1/sessions/${id}/messages`, { token })
    ).text();
    const callId = parked.toolCalls[0]?.id ?? '';
    const blocks = (JSON.parse(messages) as { messages: { content: unknown }[] }).messages.flatMap(
      (message) => (Array.isArray(message.content) ? (message.content as unknown[]) : []),
    );
    const ofCall = (type: string) =>
      blocks.filter((block) => {
        const fields = block as { type?: unknown; id?: unknown };
        return fields.type === type && fields.id === callId;
      }).length;
    expect(ofCall('tool_call'), messages).toBe(1);
    expect(ofCall('tool_result'), messages).toBeLessThanOrEqual(1);

    // A refusal stores nothing, so the same key again is refused the same way; the session goes on.
    const again = await retry();
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code?: string }).code).toBe('stale_reply');
    const next = await call(second, 'POST', `/v1/sessions/${id}/replies`, {
      token,
      body: { input: 'hello again' },
      headers: { 'idempotency-key': 'message-2' },
    });
    expect(next.status, await next.clone().text()).toBe(200);
  }, 90_000);
});
