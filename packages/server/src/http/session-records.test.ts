import { describe, expect, it } from 'vitest';
import { callAsAlice, testServer } from '../../test/support.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

/** A log that counts the lookups of session records. */
function countingLog(): { log: SqliteServerLog; lookups: () => number } {
  const log = new SqliteServerLog({ path: ':memory:' });
  const session = log.session.bind(log);
  let count = 0;
  log.session = (sessionId) => {
    count += 1;
    return session(sessionId);
  };
  return { log, lookups: () => count };
}

function get(server: ReturnType<typeof testServer>, path: string, token: string) {
  return server.fetch(
    new Request(`http://parley.test${path}`, { headers: { authorization: `Bearer ${token}` } }),
  );
}

describe('session records found lately', () => {
  it('spare their owner and approvers the lookup, and no one else', async () => {
    const { log, lookups } = countingLog();
    const server = testServer(new Map(), { log });
    const created = await callAsAlice(server, 'POST', '/v1/sessions');
    const { id } = (await created.json()) as { id: string };
    expect((await get(server, `/v1/sessions/${id}`, 'alice')).status).toBe(200);
    expect((await get(server, `/v1/sessions/${id}`, 'ann')).status).toBe(200);
    expect(lookups()).toBe(0);
    // Another owner is refused after a lookup, as for an id that does not exist.
    expect((await get(server, `/v1/sessions/${id}`, 'bob')).status).toBe(404);
    expect(lookups()).toBe(1);
    expect((await get(server, '/v1/sessions/no-such-id', 'bob')).status).toBe(404);
    expect(lookups()).toBe(2);
    await server.close();
  });

  it('keeps a record read from the log for the requests that follow', async () => {
    const { log, lookups } = countingLog();
    await log.createSession({ id: 's1', owner: 'alice', createdAt: new Date(0).toISOString() });
    const server = testServer(new Map(), { log });
    expect((await get(server, '/v1/sessions/s1', 'bob')).status).toBe(404);
    expect((await get(server, '/v1/sessions/s1', 'alice')).status).toBe(200);
    expect((await get(server, '/v1/sessions/s1', 'alice')).status).toBe(200);
    expect(lookups()).toBe(2);
    await server.close();
  });
});
