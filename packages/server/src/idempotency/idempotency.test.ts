import type { Logger } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testServer } from '../../test/support.js';
import type { ParleyServer } from '../http/create-server.js';
import { idempotencyClaim, keepClaim, lastStoredOfReply } from './idempotency.js';
import type { SessionLog } from '../log/session-log.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

const base = 'http://parley.test';

const createdSchema = z.object({ id: z.string(), owner: z.string(), createdAt: z.string() });
const listSchema = z.object({ sessions: z.array(z.object({ id: z.string() })) });
const cancelledSchema = z.object({ cancelled: z.boolean() });
const problemSchema = z.object({ code: z.string() });

function post(server: ParleyServer, path: string, token: string, key?: string) {
  return server.fetch(
    new Request(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
    }),
  );
}

async function sessionIds(server: ParleyServer, token: string): Promise<string[]> {
  const response = await server.fetch(
    new Request(`${base}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } }),
  );
  return listSchema.parse(await response.json()).sessions.map((session) => session.id);
}

async function create(server: ParleyServer, token: string, key?: string) {
  const response = await post(server, '/v1/sessions', token, key);
  expect(response.status).toBe(201);
  return createdSchema.parse(await response.json());
}

describe('Idempotency-Key on POST /v1/sessions and /cancel', () => {
  it('creates one session per key and principal, and gives the same one again', async () => {
    const server = testServer(new Map());
    const first = await create(server, 'alice', 'k1');
    expect(await create(server, 'alice', 'k1')).toEqual(first);
    const other = await create(server, 'alice', 'k2');
    expect(other.id).not.toBe(first.id);
    const bobs = await create(server, 'bob', 'k1');
    expect(bobs.id).not.toBe(first.id);
    expect(bobs.owner).toBe('bob');
    expect((await sessionIds(server, 'alice')).sort()).toEqual([first.id, other.id].sort());
    expect(await sessionIds(server, 'bob')).toEqual([bobs.id]);
    const unkeyed = [await create(server, 'alice'), await create(server, 'alice')];
    expect(unkeyed[0]?.id).not.toBe(unkeyed[1]?.id);
  });

  it('gives a repeated cancel its first outcome, and 422 for the key on another request', async () => {
    const server = testServer(new Map());
    const { id } = await create(server, 'alice', 'make');
    const first = await post(server, `/v1/sessions/${id}/cancel`, 'alice', 'stop');
    expect(first.status).toBe(200);
    const body = cancelledSchema.parse(await first.json());
    const again = await post(server, `/v1/sessions/${id}/cancel`, 'alice', 'stop');
    expect(again.status).toBe(200);
    expect(cancelledSchema.parse(await again.json())).toEqual(body);
    const { id: second } = await create(server, 'alice');
    const elsewhere = await post(server, `/v1/sessions/${second}/cancel`, 'alice', 'stop');
    expect(elsewhere.status).toBe(422);
    expect(problemSchema.parse(await elsewhere.json()).code).toBe('idempotency_key_reused');
    const crossRoute = await post(server, '/v1/sessions', 'alice', 'stop');
    expect(crossRoute.status).toBe(422);
    expect(await sessionIds(server, 'alice')).toHaveLength(2);
  });

  it('stores nothing for a refused cancel: the key stays free', async () => {
    const server = testServer(new Map());
    const { id } = await create(server, 'alice');
    const refused = await post(server, `/v1/sessions/${id}/cancel`, 'ann', 'once');
    expect(refused.status).toBe(403);
    const retried = await post(server, `/v1/sessions/${id}/cancel`, 'ann', 'once');
    expect(retried.status).toBe(403);
    const mine = await create(server, 'ann', 'once');
    expect(mine.owner).toBe('ann');
  });
});

describe('keepClaim', () => {
  /** A logger that resolves `heard` with the first line it is given at `level`. */
  function listening(level: 'warn' | 'error') {
    let hear: (line: { message: string; fields: unknown }) => void = () => undefined;
    const heard = new Promise<{ message: string; fields: unknown }>((resolve) => {
      hear = resolve;
    });
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => {
        if (level === 'warn') hear({ message, fields });
      },
      error: (message, fields) => {
        if (level === 'error') hear({ message, fields });
      },
    };
    return { logger, heard };
  }

  it('logs a renewal that failed, with the key', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const failing: SessionLog = Object.assign(Object.create(log) as SessionLog, {
      renewIdempotency: () => Promise.reject(new Error('connection lost')),
    });
    const { logger, heard } = listening('error');
    const hold = { clock: () => new Date(), claimLeaseMs: 3, logger };
    const claim = idempotencyClaim('alice', 'k', 'scope', null, hold);
    if (claim === undefined) throw new Error('no claim');
    const stop = keepClaim(failing, claim, hold);
    const line = await heard;
    stop();
    expect(line.message).toBe('Could not renew the claim of an idempotent request.');
    expect(line.fields).toMatchObject({ key: 'k', error: 'Error: connection lost' });
    log.close();
  });

  it('logs a claim found taken over by a retry', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const { logger, heard } = listening('warn');
    const hold = { clock: () => new Date(), claimLeaseMs: 3, logger };
    const claim = idempotencyClaim('alice', 'k', 'scope', null, hold);
    if (claim === undefined) throw new Error('no claim');
    // Never recorded: a renewal finds no claim of its own.
    const stop = keepClaim(log, claim, hold);
    const line = await heard;
    stop();
    expect(line).toEqual({
      message: 'The claim of an idempotent request was taken over by a retry.',
      fields: { key: 'k' },
    });
    log.close();
  });
});

describe('lastStoredOfReply', () => {
  it("ends a reply's stored events before the next reply's REPLY_START", async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const types = ['REPLY_START', 'REPLY_START', 'TEXT_BLOCK_DELTA', 'REPLY_START', 'REPLY_END'];
    const events = types.map((type, index) => ({ seq: index + 1, type, data: '{}' }));
    await log.append('s', events, 5);
    expect(await lastStoredOfReply(log, 's', 1)).toBe(3);
    expect(await lastStoredOfReply(log, 's', 3)).toBe(5);
    // Nothing of it was stored: it ends where it began.
    expect(await lastStoredOfReply(log, 's', 5)).toBe(5);
    expect(await lastStoredOfReply(log, 'other', 0)).toBe(0);
    log.close();
  });
});
