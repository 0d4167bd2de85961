// `parley serve --config FILE` as a process: the file's settings apply
// (JWT, body limit, data folder), a flag wins over the file (the port).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call, hs256Jwt, startServeNode, stopServeNode } from './serve-node.js';
import type { ServeNode } from './serve-node.js';

const secret = 'a shared secret of at least thirty-two bytes';

/** An HS256 JSON Web Token with `claims`, signed with `key`. */
function jwt(claims: Record<string, unknown>, key = secret): string {
  return hs256Jwt(claims, key);
}

describe('parley serve --config', () => {
  const folder = mkdtempSync(join(tmpdir(), 'parley-config-serve-'));
  let node: ServeNode | undefined;

  beforeAll(async () => {
    const config = join(folder, 'parley.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        data: 'state',
        port: 1,
        model: 'scripted:demo',
        jwt: { key: secret, issuer: 'https://id.example', audience: 'parley' },
        bodyLimit: 2_048,
      }),
    );
    node = await startServeNode(['--config', config, '--port', '0'], {
      ...process.env,
      PARLEY_DEMO_PACE_MS: '0',
    });
  }, 60_000);

  afterAll(async () => {
    await stopServeNode(node);
    rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  it('authenticates JWTs as the file says, limits bodies, and keeps data where it says', async () => {
    if (node === undefined) throw new Error('not started');
    expect(node.url).not.toMatch(/:1$/);
    expect(existsSync(join(folder, 'state', 'parley.sqlite'))).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'carol', iss: 'https://id.example', aud: 'parley', exp: now + 60 };
    const created = await call(node, 'POST', '/v1/sessions', { token: jwt(claims) });
    expect(created.status).toBe(201);
    const { id, owner } = z
      .object({ id: z.string(), owner: z.string() })
      .parse(await created.json());
    expect(owner).toBe('carol');
    for (const token of [
      jwt(claims, 'another secret of at least thirty-two bytes'),
      jwt({ ...claims, aud: 'someone-else' }),
      jwt({ ...claims, exp: now - 60 }),
    ]) {
      expect((await call(node, 'GET', `/v1/sessions/${id}`, { token })).status).toBe(401);
    }
    const tooBig = await call(node, 'POST', `/v1/sessions/${id}/replies`, {
      token: jwt(claims),
      body: { input: 'x'.repeat(4_096) },
    });
    expect(tooBig.status).toBe(413);
  }, 30_000);
});
