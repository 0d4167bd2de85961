import { StoreMigrationError } from '@parley/core';
import { Pool, escapeIdentifier } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  describeSessionLogConformance,
  drain,
  live,
  textReply,
} from '../../../test/session-log-conformance.js';
import { EventFeed } from '../../events/event-feed.js';
import { followEvents } from '../../events/follow-events.js';
import { applyLogMigrations, POSTGRES_LOG_MIGRATIONS } from './postgres-log-migrations.js';
import { PostgresServerLog } from './postgres-server-log.js';
import { postgresRateLimit } from '../../http/middleware/rate-limit.js';
import { EventNumberTakenError, RateLimitedError } from '../../errors.js';
import type { StoredEvent } from '../session-log.js';
import { postgresTestUrl, randomName } from '../../../test/postgres-url.js';

const url = postgresTestUrl('Postgres server log');

describe.skipIf(url === '')('PostgresServerLog', () => {
  let admin: Pool | undefined;
  const schemas: string[] = [];
  beforeAll(() => {
    admin = new Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    for (const schema of schemas) {
      await admin?.query(`DROP SCHEMA IF EXISTS ${escapeIdentifier(schema)} CASCADE`);
    }
    await admin?.end();
  });
  /** A place of its own: a fresh schema and channel, shared by `nodes` logs (several nodes). */
  async function deployment(nodes: number): Promise<PostgresServerLog[]> {
    const schema = randomName('parley_log_test');
    schemas.push(schema);
    const channel = randomName('parley_events');
    const logs: PostgresServerLog[] = [];
    for (let index = 0; index < nodes; index += 1) {
      logs.push(await PostgresServerLog.open({ connectionString: url, schema, channel }));
    }
    return logs;
  }

  describeSessionLogConformance('PostgresServerLog', async () => {
    const [log] = await deployment(1);
    if (log === undefined) throw new Error('no log');
    return { log, close: () => log.close() };
  });

  it('migrates once when several nodes start at once, and refuses a newer database', async () => {
    const logs = await deployment(4);
    await Promise.all(logs.map((log) => log.migrate()));
    const schema = schemas.at(-1) ?? '';
    const applied = await admin?.query<{ version: number }>(
      `SELECT version FROM ${escapeIdentifier(schema)}.parley_server_migrations ORDER BY version`,
    );
    expect(applied?.rows.map((row) => row.version)).toEqual(
      POSTGRES_LOG_MIGRATIONS.map((migration) => migration.version),
    );
    if (admin === undefined) throw new Error('no admin pool');
    await expect(
      applyLogMigrations(
        admin,
        escapeIdentifier(schema),
        schema,
        POSTGRES_LOG_MIGRATIONS.slice(0, 1),
      ),
    ).rejects.toBeInstanceOf(StoreMigrationError);
    await Promise.all(logs.map((log) => log.close()));
  });

  /** A new schema with the first `steps` migrations run, as a build before the others left it. */
  async function schemaBefore(steps: number) {
    if (admin === undefined) throw new Error('no admin pool');
    const schema = randomName('parley_log_test');
    schemas.push(schema);
    const quoted = escapeIdentifier(schema);
    await applyLogMigrations(admin, quoted, schema, POSTGRES_LOG_MIGRATIONS.slice(0, steps));
    return { admin, schema, quoted };
  }

  it('lists the waiting calls indexed before versions until the next refresh replaces them', async () => {
    const { admin, schema, quoted } = await schemaBefore(6);
    await admin.query(
      `INSERT INTO ${quoted}.parley_server_sessions (id, owner, created_at)
         VALUES ('a', 'alice', '2026-01-01');
       INSERT INTO ${quoted}.parley_waiting_calls
         (session_id, tool_call_id, position, reply_id, deadline, tool_call)
         VALUES ('a', 'c1', 0, 'r1', NULL,
           '{"type":"tool_call","id":"c1","name":"write_file","awaiting":"confirm"}')`,
    );
    const log = await PostgresServerLog.open({ connectionString: url, schema });
    await log.migrate();
    expect((await log.listWaiting('alice')).map((approval) => approval.replyId)).toEqual(['r1']);
    await log.setWaiting('a', [], 1);
    expect(await log.listWaiting('alice')).toEqual([]);
    const left = await admin.query(`SELECT count(*)::int AS n FROM ${quoted}.parley_waiting_calls`);
    expect(left.rows[0]).toEqual({ n: 0 });
    await log.close();
  });

  it('carries claims made before claim holders over: settled ones kept, running ones held one lease', async () => {
    const { admin, schema, quoted } = await schemaBefore(3);
    await admin.query(
      `INSERT INTO ${quoted}.parley_idempotency (principal, key, request_hash, after, last_seq, response)
       VALUES ('alice', 'done', 'h', 1, 3, '"ok"'), ('alice', 'running', 'h', NULL, NULL, NULL)`,
    );
    const log = await PostgresServerLog.open({ connectionString: url, schema });
    await log.migrate();
    const claim = (key: string, claimId: string, heldUntil: number) => ({
      principal: 'alice',
      key,
      requestHash: 'h',
      claimId,
      heldUntil,
      after: null,
      lastSeq: null,
      response: null,
      interrupted: false,
      status: 200,
    });
    const now = Date.now();
    expect(await log.claimIdempotency(claim('done', 'a', now + 1000), now)).toMatchObject({
      after: 1,
      lastSeq: 3,
      response: '"ok"',
    });
    const running = await log.claimIdempotency(claim('running', 'b', now + 1000), now);
    expect(running?.claimId).toBe('');
    expect(running?.heldUntil).toBeGreaterThan(now + 20_000);
    // Once that lease is over, a retry takes it over.
    const later = now + 60_000;
    expect(await log.claimIdempotency(claim('running', 'c', later + 1000), later)).toBeUndefined();
    await log.close();
  });

  it('announces each append after it commits, with the highest number stored', async () => {
    const [writer, reader] = await deployment(2);
    if (writer === undefined || reader === undefined) throw new Error('no logs');
    const heard: number[] = [];
    let wake: (() => void) | undefined;
    const stop = await reader.watch('s:1', (seq) => {
      heard.push(seq);
      wake?.();
    });
    const next = () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      });
    const first = next();
    await writer.append(
      's:1',
      [
        { seq: 1, type: 'A', data: '{}' },
        { seq: 2, type: 'B', data: '{}' },
      ],
      64,
    );
    await first;
    // A reservation alone announces nothing; the next stored event does.
    await writer.append('s:1', [], 128);
    await writer.append('s:other', [{ seq: 1, type: 'A', data: '{}' }], 1);
    const second = next();
    await writer.append('s:1', [{ seq: 3, type: 'C', data: '{}' }], 3);
    await second;
    expect(heard).toEqual([2, 3]);
    stop();
    await Promise.all([writer.close(), reader.close()]);
  });

  it('commits appends made side by side together; a bad one fails only its own caller', async () => {
    const [writer, reader] = await deployment(2);
    if (writer === undefined || reader === undefined) throw new Error('no logs');
    await writer.append('s:b', [{ seq: 1, type: 'A', data: '{}' }], 1);
    const heard: string[] = [];
    const stops = await Promise.all(
      ['s:a', 's:b', 's:c'].map((id) => reader.watch(id, (seq) => heard.push(`${id}:${seq}`))),
    );
    const outcomes = await Promise.allSettled([
      writer.append('s:a', [{ seq: 1, type: 'A', data: '{"n":1}' }], 8),
      // Number 1 of s:b is stored already: this one is refused.
      writer.append('s:b', [{ seq: 1, type: 'B', data: '{}' }], 1),
      writer.append(
        's:c',
        [
          { seq: 1, type: 'C', data: '{}' },
          { seq: 2, type: 'D', data: '{}' },
        ],
        2,
      ),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(await reader.events('s:a', 0, 10)).toEqual([{ seq: 1, type: 'A', data: '{"n":1}' }]);
    expect(await reader.events('s:b', 0, 10)).toEqual([{ seq: 1, type: 'A', data: '{}' }]);
    expect((await reader.events('s:c', 0, 10)).map((event) => event.type)).toEqual(['C', 'D']);
    expect(await reader.lastSeq('s:a')).toBe(8);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (heard.includes('s:a:1') && heard.includes('s:c:2')) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    expect(heard.filter((notice) => notice.startsWith('s:b'))).toEqual([]);
    for (const stop of stops) stop();
    await Promise.all([writer.close(), reader.close()]);
  });

  it('shows a follower on one node a reply recorded on another, live, once and in order', async () => {
    const [nodeA, nodeB] = await deployment(2);
    if (nodeA === undefined || nodeB === undefined) throw new Error('no logs');
    // Two replies before the follower comes: it starts after the first event.
    await drain(new EventFeed(nodeB).record('s1', live(textReply('s1', 3))));
    const recording = new EventFeed(nodeB).record('s1', live(textReply('s1', 100)));
    const controller = new AbortController();
    const follower = followEvents(nodeA, new EventFeed(nodeA), 's1', 1, controller.signal);
    const seen: StoredEvent[] = [];
    const take = async (): Promise<StoredEvent> => {
      const next = await follower.next();
      if (next.done === true) throw new Error('the follower ended');
      seen.push(next.value);
      return next.value;
    };
    // The stored events of the first reply.
    for (let index = 0; index < 5; index += 1) await take();
    // Each event that is not a delta reaches node A before node B goes on.
    const start = await recording.next();
    expect(start.done !== true && start.value.type).toBe('REPLY_START');
    expect((await take()).type).toBe('REPLY_START');
    const blockStart = await recording.next();
    expect(blockStart.done !== true && blockStart.value.type).toBe('TEXT_BLOCK_START');
    expect((await take()).type).toBe('TEXT_BLOCK_START');
    // The rest of the reply, deltas included, then the reply is over.
    await drain(recording);
    while (seen.length < 5 + 103) await take();
    controller.abort();
    expect(await follower.next()).toEqual({ done: true, value: undefined });
    expect(seen.map((stored) => stored.seq)).toEqual(
      Array.from({ length: 5 + 103 }, (_, index) => index + 2),
    );
    expect(await nodeA.events('s1', 1, 1000)).toEqual(seen);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });

  it("reads the log for another node's appends, not for those of replies it records itself", async () => {
    const [nodeA, nodeB] = await deployment(2);
    if (nodeA === undefined || nodeB === undefined) throw new Error('no logs');
    const reads = vi.spyOn(nodeA, 'events');
    const feedA = new EventFeed(nodeA);
    const controller = new AbortController();
    const follower = followEvents(nodeA, feedA, 's1', 0, controller.signal);
    const seen: number[] = [];
    let until = 0;
    let reached: () => void = () => undefined;
    const following = (async () => {
      for await (const stored of follower) {
        seen.push(stored.seq);
        if (stored.seq === until) reached();
      }
    })();
    const local = await drain(feedA.record('s1', live(textReply('s1', 20))));
    until = local.at(-1)?.seq ?? 0;
    if (seen.at(-1) !== until) await new Promise<void>((resolve) => (reached = resolve));
    // Each of its own appends was announced on the channel; none sent the follower to the log.
    expect(reads).toHaveBeenCalledTimes(1);
    const remote = await drain(new EventFeed(nodeB).record('s1', live(textReply('s1', 3))));
    until = remote.at(-1)?.seq ?? 0;
    if (seen.at(-1) !== until) await new Promise<void>((resolve) => (reached = resolve));
    controller.abort();
    await following;
    expect(seen).toEqual([...local, ...remote].map((stored) => stored.seq));
    expect(reads.mock.calls.length).toBeGreaterThan(1);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });

  /** Two nodes, a feed on node A, and a follower of session s1 on node A from its start. */
  async function followedOnA() {
    const [nodeA, nodeB] = await deployment(2);
    if (nodeA === undefined || nodeB === undefined) throw new Error('no logs');
    const feedA = new EventFeed(nodeA);
    const controller = new AbortController();
    const follower = followEvents(nodeA, feedA, 's1', 0, controller.signal);
    return { nodeA, nodeB, feedA, controller, follower };
  }

  it('numbers held events anew after those another node stored under their numbers', async () => {
    const { nodeA, nodeB, feedA, controller, follower } = await followedOnA();
    // Node B stores number 1 between node A's read of the last number and its append.
    const taken: StoredEvent = { seq: 1, type: 'REPLY_START', data: '{"from":"b"}' };
    const lastSeq = nodeA.lastSeq.bind(nodeA);
    vi.spyOn(nodeA, 'lastSeq').mockImplementationOnce(async (sessionId) => {
      const seq = await lastSeq(sessionId);
      await nodeB.append(sessionId, [taken], 1);
      return seq;
    });
    const recorded = await drain(feedA.record('s1', live(textReply('s1', 2))));
    expect(recorded.map((stored) => stored.seq)).toEqual([2, 3, 4, 5, 6]);
    const seen: StoredEvent[] = [];
    for await (const stored of follower) {
      seen.push(stored);
      if (stored.seq === 6) controller.abort();
    }
    expect(seen).toEqual([taken, ...recorded]);
    expect(await nodeA.events('s1', 0, 10)).toEqual(seen);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });

  it('sends followers to the log when another node keeps taking the numbers given here', async () => {
    const { nodeA, nodeB, feedA, controller, follower } = await followedOnA();
    // Each time node A reads the last number, node B stores the next one first.
    const lastSeq = nodeA.lastSeq.bind(nodeA);
    vi.spyOn(nodeA, 'lastSeq').mockImplementation(async (sessionId) => {
      const seq = await lastSeq(sessionId);
      const taken = { seq: seq + 1, type: 'REPLY_START', data: `{"from":"b","n":${seq + 1}}` };
      await nodeB.append(sessionId, [taken], seq + 1);
      return seq;
    });
    await expect(drain(feedA.record('s1', live(textReply('s1', 2))))).rejects.toBeInstanceOf(
      EventNumberTakenError,
    );
    const seen: number[] = [];
    for await (const stored of follower) {
      seen.push(stored.seq);
      if (stored.seq === 3) controller.abort();
    }
    // Three tries, three numbers taken by node B; none of node A's events stored.
    expect(seen).toEqual([1, 2, 3]);
    expect((await nodeA.events('s1', 0, 10)).map((stored) => stored.data)).toEqual(
      [1, 2, 3].map((n) => `{"from":"b","n":${n}}`),
    );
    await Promise.all([nodeA.close(), nodeB.close()]);
  });

  it('continues numbering on another node after one died mid-stream, with no number twice', async () => {
    const [nodeA, nodeB] = await deployment(2);
    if (nodeA === undefined || nodeB === undefined) throw new Error('no logs');
    const controller = new AbortController();
    const feedA = new EventFeed(nodeA);
    const follower = followEvents(nodeA, feedA, 's1', 0, controller.signal);
    const crashed = new EventFeed(nodeB).record('s1', live(textReply('s1', 10)));
    for (let step = 0; step < 7; step += 1) await crashed.next();
    // Node B is gone (its generator is never finished); node A runs the next reply.
    const continued = await drain(feedA.record('s1', live(textReply('s1', 2))));
    expect(continued[0]?.seq).toBeGreaterThan(7);
    const seen: number[] = [];
    for await (const stored of follower) {
      seen.push(stored.seq);
      if (stored.seq === continued.at(-1)?.seq) controller.abort();
    }
    expect(seen).toEqual([1, 2, 3, ...continued.map((stored) => stored.seq)]);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });

  it('numbers replies after the last number it knows, and reads it again once another node moved it', async () => {
    const [nodeA, nodeB] = await deployment(2);
    if (nodeA === undefined || nodeB === undefined) throw new Error('no logs');
    await nodeA.createSession({ id: 's1', owner: 'alice', createdAt: '2026-01-01' });
    const reads = vi.spyOn(nodeA, 'lastSeq');
    const first = await drain(new EventFeed(nodeA).record('s1', live(textReply('s1', 2))));
    const second = await drain(new EventFeed(nodeA).record('s1', live(textReply('s1', 2))));
    expect([...first, ...second].map((stored) => stored.seq)).toEqual(
      Array.from({ length: 10 }, (_, index) => index + 1),
    );
    expect(reads).not.toHaveBeenCalled();
    // Node B streams after those and dies with numbers shown but not stored.
    const crashed = new EventFeed(nodeB).record('s1', live(textReply('s1', 10)));
    for (let step = 0; step < 7; step += 1) await crashed.next();
    const reserved = await nodeB.lastSeq('s1');
    expect(reserved).toBeGreaterThan(17);
    // Node A still knows 10: its first append is refused, it reads the log and goes on after.
    const third = await drain(new EventFeed(nodeA).record('s1', live(textReply('s1', 2))));
    expect(reads).toHaveBeenCalledTimes(1);
    expect(third.map((stored) => stored.seq)).toEqual(
      Array.from({ length: 5 }, (_, index) => reserved + 1 + index),
    );
    expect((await nodeA.events('s1', 10, 100)).map((stored) => stored.seq)).toEqual([
      11,
      12,
      13,
      ...third.map((stored) => stored.seq),
    ]);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });

  it('takes the LISTEN connection again after it dies, and tells followers to read the log', async () => {
    const schema = randomName('parley_log_test');
    schemas.push(schema);
    const channel = randomName('parley_events');
    const failures: Error[] = [];
    const reader = await PostgresServerLog.open({
      connectionString: url,
      schema,
      channel,
      onError: (error) => failures.push(error),
    });
    const writer = await PostgresServerLog.open({ connectionString: url, schema, channel });
    const heard: number[] = [];
    let wake: (() => void) | undefined;
    const next = () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      });
    const stop = await reader.watch('s1', (seq) => {
      heard.push(seq);
      wake?.();
    });
    const resynced = next();
    await admin?.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`, [
      `LISTEN ${escapeIdentifier(channel)}`,
    ]);
    await resynced;
    expect(heard).toEqual([Number.MAX_SAFE_INTEGER]);
    expect(failures.length).toBeGreaterThan(0);
    const after = next();
    await writer.append('s1', [{ seq: 1, type: 'A', data: '{}' }], 1);
    await after;
    expect(heard).toEqual([Number.MAX_SAFE_INTEGER, 1]);
    stop();
    await Promise.all([reader.close(), writer.close()]);
  });

  it('creates the rate limit table when many nodes start together', async () => {
    // The race is rare: twenty fresh schemas, sixteen creations at once in
    // each, by four nodes (a pool's prepared statements name the table alone,
    // so a pool serves one schema).
    for (let round = 0; round < 20; round += 1) {
      const pools = Array.from({ length: 4 }, () => new Pool({ connectionString: url, max: 4 }));
      const schema = randomName('parley_log_test');
      schemas.push(schema);
      await admin?.query(`CREATE SCHEMA ${escapeIdentifier(schema)}`);
      const limits = await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          postgresRateLimit(
            { requests: 1, windowSeconds: 60 },
            { pool: pools[index % pools.length]!, schema },
          ),
        ),
      );
      await limits[0]?.take({ id: 'alice' });
      const refused = await limits[15]?.take({ id: 'alice' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimitedError);
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it("shares a principal's rate limit between nodes", async () => {
    const schema = randomName('parley_log_test');
    schemas.push(schema);
    const pools = [new Pool({ connectionString: url }), new Pool({ connectionString: url })];
    await admin?.query(`CREATE SCHEMA ${escapeIdentifier(schema)}`);
    const [nodeA, nodeB] = await Promise.all(
      pools.map((pool) => postgresRateLimit({ requests: 3, windowSeconds: 60 }, { pool, schema })),
    );
    if (nodeA === undefined || nodeB === undefined) throw new Error('no limits');
    const alice = { id: 'alice' };
    await nodeA.take(alice);
    await nodeB.take(alice);
    await nodeA.take(alice);
    const refused = await nodeB.take(alice).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    await nodeB.take({ id: 'bob' });
    await Promise.all(pools.map((pool) => pool.end()));
  });
});
