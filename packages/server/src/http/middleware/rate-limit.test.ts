import { describe, expect, it } from 'vitest';
import { testServer } from '../../../test/support.js';
import type { ParleyServer } from '../create-server.js';
import { SqliteServerLog } from '../../log/sqlite/sqlite-server-log.js';

const base = 'http://parley.test';

function call(server: ParleyServer, token: string, method = 'GET', path = '/v1/sessions') {
  return server.fetch(
    new Request(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } }),
  );
}

describe('the rate limit', () => {
  it('refuses a principal over the limit with 429 and Retry-After, and stores nothing', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const server = testServer(new Map(), { log, rateLimit: { requests: 2, windowSeconds: 60 } });
    expect((await call(server, 'alice', 'POST')).status).toBe(201);
    expect((await call(server, 'alice')).status).toBe(200);

    const refused = await call(server, 'alice', 'POST');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await log.listSessions('alice', { limit: 10 })).sessions).toHaveLength(1);

    // Another principal has a budget of its own; no credentials is still 401.
    expect((await call(server, 'bob')).status).toBe(200);
    expect((await call(server, 'nobody')).status).toBe(401);
    await server.close();
  });
});
