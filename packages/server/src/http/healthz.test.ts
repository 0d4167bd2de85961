import { describe, expect, it } from 'vitest';
import { testServer } from '../../test/support.js';

const healthz = async (options: Parameters<typeof testServer>[1] = {}) =>
  (await testServer(new Map(), options).fetch(new Request('http://parley.test/healthz'))).json();

describe('GET /healthz', () => {
  it('says ok, and which sandbox Bash runs commands in when told', async () => {
    expect(await healthz()).toEqual({ ok: true });
    expect(await healthz({ sandbox: 'bubblewrap' })).toEqual({ ok: true, sandbox: 'bubblewrap' });
    expect(await healthz({ sandbox: 'none' })).toEqual({ ok: true, sandbox: 'none' });
  });
});
