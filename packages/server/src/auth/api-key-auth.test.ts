import { describe, expect, it } from 'vitest';
import { apiKeyAuth, createApiKey } from './api-key-auth.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

const withToken = (token: string): Request =>
  new Request('http://parley.test/v1/sessions', { headers: { authorization: `Bearer ${token}` } });

describe('apiKeyAuth', () => {
  it('accepts a live key, keeps only its hash, and refuses a wrong secret or a revoked key', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const authenticate = apiKeyAuth(log);
    const { record, token } = await createApiKey(log, 'ada', ['approver']);
    // `pk_<16 hex>_<secret>`: the secret is base64url and may itself hold `_`.
    const secret = token.slice('pk_'.length + 16 + 1);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(await log.listKeys())).not.toContain(secret);
    expect(await authenticate(withToken(token))).toEqual({ id: 'ada', roles: ['approver'] });

    const wrongSecret = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(await authenticate(withToken(wrongSecret))).toBeNull();
    expect(await authenticate(withToken('pk_0000000000000000_' + 'x'.repeat(43)))).toBeNull();
    expect(await authenticate(new Request('http://parley.test/'))).toBeNull();

    expect(await log.revokeKey(record.id, new Date().toISOString())).toBe(true);
    expect(await authenticate(withToken(token))).toBeNull();
    expect(await log.revokeKey(record.id, new Date().toISOString())).toBe(false);
  });
});
