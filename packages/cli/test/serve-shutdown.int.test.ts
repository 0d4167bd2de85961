// SIGTERM to `parley serve` while a reply is running: the reply gets the
// grace period, is cancelled, its closed state saved without a lease; a new
// `parley serve` on the same data continues the session at once.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { parleyCommand } from './tmux.js';

const data = mkdtempSync(join(tmpdir(), 'parley-serve-stop-'));
const started: ChildProcess[] = [];

type Served = { child: ChildProcess; url: string; token: string; stderr: () => string };

/** Starts `parley serve` on `data` with the demo paced at `paceMs`; resolves once it printed its URL. */
function serve(paceMs: number): Promise<Served> {
  const [command = 'node', ...rest] = parleyCommand;
  const child = spawn(
    command,
    [...rest, 'serve', '--model', 'scripted:demo', '--port', '0', '--data', data],
    {
      env: { ...process.env, PARLEY_DEMO_PACE_MS: String(paceMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      const token = /this run only\): (\S+)/.exec(output)?.[1];
      if (url !== undefined && token !== undefined) {
        resolve({ child, url, token, stderr: () => errors });
      }
    });
    child.once('exit', (code) => reject(new Error(`parley serve exited (${code}): ${output}`)));
  });
}

function post(served: Served, path: string, body?: unknown, accept = 'application/json') {
  return fetch(`${served.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${served.token}`,
      accept,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The event types of an SSE response, read until `enough` or the end. */
async function eventTypes(response: Response, enough: (type: string) => boolean) {
  const types: string[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      types.push(event.event ?? '');
      done ||= enough(event.event ?? '');
    },
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  while (reader !== undefined && !done) {
    const chunk = await reader.read();
    const bytes: unknown = chunk.value;
    if (chunk.done || !(bytes instanceof Uint8Array)) break;
    parser.feed(decoder.decode(bytes, { stream: true }));
  }
  await reader?.cancel();
  return types;
}

describe('parley serve on SIGTERM', () => {
  afterAll(() => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  });

  it('cancels a reply still running after the grace period, and the next process continues the session', async () => {
    // Paced so that the model "thinks" for 30 s: the reply is running when SIGTERM comes.
    const first = await serve(1000);
    const { id } = (await (await post(first, '/v1/sessions')).json()) as { id: string };
    const response = await post(
      first,
      `/v1/sessions/${id}/replies`,
      { input: 'hello' },
      'text/event-stream',
    );
    expect(response.status).toBe(200);
    const reading = eventTypes(response, (type) => type === 'REPLY_END');
    const exited = new Promise<number | null>((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const seen = await reading;
    expect(seen[0]).toBe('REPLY_START');
    expect(seen.at(-1)).toBe('REPLY_END');
    expect(first.stderr()).toContain('Cancelling replies still running after the grace period.');

    const second = await serve(0);
    const events = await eventTypes(
      await fetch(`${second.url}/v1/sessions/${id}/events?after=0`, {
        headers: { authorization: `Bearer ${second.token}` },
      }),
      (type) => type === 'REPLY_END',
    );
    expect(events).toEqual(seen);
    const summary = (await (
      await fetch(`${second.url}/v1/sessions/${id}`, {
        headers: { authorization: `Bearer ${second.token}` },
      })
    ).json()) as { status: string };
    expect(summary.status).toBe('idle');
    // No lease left behind: a new message is taken at once, not refused as busy.
    const again = await post(second, `/v1/sessions/${id}/replies`, { input: 'hello again' });
    expect(again.status).toBe(200);
    second.child.kill('SIGTERM');
  }, 60_000);
});
