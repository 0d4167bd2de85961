// `parley serve` as a process against hostile callers, over real HTTP: a
// key revoked and a token expired under open streams (the stream ends with
// a STREAM_CLOSED frame, the reply goes on), and too many open streams.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteServerLog, createApiKey } from '@parley/server';
import type { CreatedApiKey } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  call,
  hs256Jwt,
  readFrames,
  settles,
  startServeNode,
  stopServeNode,
} from './serve-node.js';
import type { Frame, ServeNode } from './serve-node.js';

const secret = 'a shared secret of at least thirty-two bytes';
const checkMs = 200;

/** An HS256 JSON Web Token with `claims`, signed with `key`. */
function jwt(claims: Record<string, unknown>, key = secret): string {
  return hs256Jwt(claims, key);
}

const closedSchema = z.object({ type: z.literal('STREAM_CLOSED'), reason: z.string() });

describe('parley serve against hostile callers', () => {
  const folder = mkdtempSync(join(tmpdir(), 'parley-hostile-serve-'));
  const path = join(folder, 'data', 'parley.sqlite');
  let node: ServeNode | undefined;
  let keys: SqliteServerLog | undefined;
  let carol: CreatedApiKey | undefined;
  let login = '';

  beforeAll(async () => {
    const config = join(folder, 'parley.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        data: 'data',
        model: 'scripted:demo',
        jwt: { key: secret },
        streamAuthCheckMs: checkMs,
        streamLimits: { perPrincipal: 3 },
      }),
    );
    // A slow demo: its reply takes seconds before it parks.
    node = await startServeNode(['--config', config, '--port', '0'], {
      ...process.env,
      PARLEY_DEMO_PACE_MS: '60',
    });
    login = /this run only\): (\S+)/.exec(node.output())?.[1] ?? '';
    // The same file the server reads its keys from, as `parley keys` would write it.
    keys = new SqliteServerLog({ path });
    carol = await createApiKey(keys, 'carol');
  }, 60_000);

  afterAll(async () => {
    await stopServeNode(node);
    keys?.close();
    rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  it('ends the stream of a revoked key with STREAM_CLOSED; the reply goes on', async () => {
    if (node === undefined || keys === undefined || carol === undefined)
      throw new Error('not started');
    const token = carol.token;
    const created = await call(node, 'POST', '/v1/sessions', { token });
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const reply = await call(node, 'POST', `/v1/sessions/${id}/replies`, {
      token,
      body: { input: 'hello' },
      headers: { accept: 'text/event-stream' },
    });
    expect(reply.status).toBe(200);
    const revoke = async (frame: Frame): Promise<void> => {
      if (frame.event === 'REPLY_START') {
        await keys?.revokeKey(carol?.record.id ?? '', new Date().toISOString());
      }
    };
    const frames = await readFrames(
      reply,
      () => false,
      (frame) => void revoke(frame),
    );
    const last = frames.at(-1);
    expect(last?.event).toBe('STREAM_CLOSED');
    expect(closedSchema.parse(JSON.parse(last?.data ?? '')).reason).toBe('unauthenticated');
    // The stream was cut before the reply parked; the reply parks all the same.
    expect(frames.some(settles)).toBe(false);
    const rest = await readFrames(
      await call(node, 'GET', `/v1/sessions/${id}/events`, { token: login }),
      settles,
    );
    expect(rest.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    expect((await call(node, 'GET', `/v1/sessions/${id}`, { token })).status).toBe(401);
  }, 60_000);

  it('ends the stream of an expired token with STREAM_CLOSED', async () => {
    if (node === undefined) throw new Error('not started');
    const now = Math.floor(Date.now() / 1000);
    const token = jwt({ sub: 'dora', iat: now, exp: now + 2 });
    const created = await call(node, 'POST', '/v1/sessions', { token });
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const opened = Date.now();
    const stream = await call(node, 'GET', `/v1/sessions/${id}/events`, { token });
    expect(stream.status).toBe(200);
    const frames = await readFrames(stream, () => false);
    expect(frames.at(-1)?.event).toBe('STREAM_CLOSED');
    // Ended once the token expired, within a few checks of it.
    expect(Date.now()).toBeGreaterThanOrEqual((now + 2) * 1000 - 1_000);
    expect(Date.now() - opened).toBeLessThan(15_000);
    // A token without exp is refused from the start.
    const forever = jwt({ sub: 'dora' });
    expect((await call(node, 'GET', '/v1/sessions', { token: forever })).status).toBe(401);
  }, 60_000);

  it('refuses a principal a fourth open stream with 429 and Retry-After, and counts it', async () => {
    const server = node;
    if (server === undefined) throw new Error('not started');
    const token = login;
    const created = await call(server, 'POST', '/v1/sessions', { token });
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const follow = () => call(server, 'GET', `/v1/sessions/${id}/events`, { token });
    const held = [await follow(), await follow(), await follow()];
    expect(held.map((response) => response.status)).toEqual([200, 200, 200]);
    const refused = await follow();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('parley_streams_refused_total{limit="principal"} 1');
    for (const response of held) await response.body?.cancel();
  }, 60_000);
});
