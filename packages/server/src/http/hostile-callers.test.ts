// Hostile callers over real HTTP (the server listening on a port, fetch as
// the client): credentials revoked under an open stream, deep JSON, too
// many streams, the headers a security review expects, refusals logged.
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemorySessionStore } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { createParser } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noteAgent, principals, readFrames, readText } from '../../test/support.js';
import { createApiKey, apiKeyAuth } from '../auth/api-key-auth.js';
import { createServer } from './create-server.js';
import type { ParleyServer, ServerOptions } from './create-server.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

/** A model that says one word, then hangs until its reply is cancelled. */
class HangingModel implements ChatModel {
  readonly name = 'hanging';
  async *stream(_request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    yield { type: 'text_delta', delta: 'Thinking' };
    await sleep(60_000, undefined, signal === undefined ? {} : { signal });
    yield { type: 'finish', finishedReason: 'stop' };
  }
}

type Logged = { message: string; fields: Record<string, unknown> };
type Frame = { id: string | undefined; event: string | undefined; data: string };

const open: ParleyServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A logger keeping what it is told. */
function keep(lines: Logged[]): Logger {
  const push = (message: string, fields?: Record<string, unknown>): void => {
    lines.push({ message, fields: fields ?? {} });
  };
  return { debug: push, info: push, warn: push, error: push };
}

/** Principals by bearer name, as in the shared support. */
const byName: ServerOptions['authenticate'] = (request) => {
  const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  return token === undefined ? null : (principals[token] ?? null);
};

/** A server listening on a free port; `call` sends a request to it. */
async function listening(options: Partial<ServerOptions> = {}) {
  const server = createServer({
    store: new InMemorySessionStore(),
    agent: noteAgent(new Map()),
    authenticate: byName,
    ...options,
  });
  open.push(server);
  const { url } = await server.listen({ port: 0 });
  const call = (
    method: string,
    path: string,
    init: { token?: string; body?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
  const session = async (token = 'alice'): Promise<string> => {
    const created = await call('POST', '/v1/sessions', { token });
    return z.object({ id: z.string() }).parse(await created.json()).id;
  };
  return { server, url, call, session };
}

const codeOf = async (response: Response): Promise<string> =>
  z.object({ code: z.string() }).parse(await response.json()).code;

describe('credentials that stop being valid under an open stream', () => {
  it('end the stream with a STREAM_CLOSED frame saying why', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const key = await createApiKey(log, 'carol');
    const lines: Logged[] = [];
    const { call, session } = await listening({
      log,
      authenticate: apiKeyAuth(log),
      streamAuthCheckMs: 20,
      logger: keep(lines),
    });
    const id = await session(key.token);
    const stream = await call('GET', `/v1/sessions/${id}/events`, { token: key.token });
    expect(stream.status).toBe(200);
    await log.revokeKey(key.record.id, new Date().toISOString());
    const frames = await readFrames(stream);
    expect(frames.at(-1)?.event).toBe('STREAM_CLOSED');
    expect(frames.at(-1)?.id).toBeUndefined();
    expect(JSON.parse(frames.at(-1)?.data ?? '')).toMatchObject({ reason: 'unauthenticated' });
    const metrics = await (await call('GET', '/metrics')).text();
    expect(metrics).toContain('parley_streams_closed_total{reason="unauthenticated"} 1');
    expect(metrics).toMatch(/parley_sse_clients 0/);
    // A new request with the revoked key is refused, and the refusal logged.
    expect((await call('GET', `/v1/sessions/${id}`, { token: key.token })).status).toBe(401);
    expect(lines.some((line) => line.fields['code'] === 'unauthenticated')).toBe(true);
    await Promise.all(open.splice(0).map((server) => server.close()));
    log.close();
  });

  it('end the stream the same way when the server is called as a fetch handler', async () => {
    let valid = true;
    const server = createServer({
      store: new InMemorySessionStore(),
      agent: noteAgent(new Map()),
      authenticate: () => (valid ? { id: 'erin' } : null),
      streamAuthCheckMs: 20,
    });
    open.push(server);
    const base = 'http://parley.test/v1/sessions';
    const created = await server.fetch(new Request(base, { method: 'POST' }));
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const stream = await server.fetch(new Request(`${base}/${id}/events`));
    expect(stream.status).toBe(200);
    valid = false;
    const frames = await readFrames(stream);
    expect(frames.map((frame) => frame.event)).toEqual(['STREAM_CLOSED']);
  });

  it('end an AG-UI run with RUN_ERROR unauthenticated', async () => {
    let valid = true;
    const { call } = await listening({
      agent: { name: 'assistant', model: new HangingModel() },
      authenticate: () => (valid ? { id: 'dave' } : null),
      streamAuthCheckMs: 20,
      graceMs: 10,
    });
    const run = call('POST', '/v1/agui', {
      token: 'dave',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: 'thread-1',
        runId: 'run-1',
        messages: [{ id: 'u1', role: 'user', content: 'write a note' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    const response = await run;
    expect(response.status).toBe(200);
    const frames: Frame[] = [];
    const parser = createParser({
      onEvent: (event) => frames.push({ id: event.id, event: event.event, data: event.data }),
    });
    await readText(response, (text) => {
      parser.feed(text);
      // The run is under way (its reply hangs): now the credentials go.
      if (text.includes('TEXT_MESSAGE_CONTENT')) valid = false;
      return false;
    });
    const last = z
      .object({ type: z.string(), code: z.string() })
      .parse(JSON.parse(frames.at(-1)?.data ?? ''));
    expect(last).toMatchObject({ type: 'RUN_ERROR', code: 'unauthenticated' });
  });
});

describe('deeply nested JSON', () => {
  const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('is refused with 400 before anything runs or is stored', async () => {
    const { call, session } = await listening();
    const id = await session();
    const reply = await call('POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: `{"input":{"role":"user","content":"hi","metadata":{"x":${deep(10_000)}}}}`,
    });
    expect(reply.status).toBe(400);
    expect(await codeOf(reply)).toBe('invalid_request');
    const agui = await call('POST', '/v1/agui', {
      token: 'alice',
      body: `{"threadId":"t-deep","runId":"r","messages":[],"tools":[],"context":[],"forwardedProps":{},"state":${deep(10_000)}}`,
    });
    expect(agui.status).toBe(400);
    const summary = await call('GET', `/v1/sessions/${id}`, { token: 'alice' });
    expect(await summary.json()).toMatchObject({ lastSeq: 0, status: 'idle' });
    expect((await call('GET', '/v1/sessions/t-deep', { token: 'alice' })).status).toBe(404);
  });
});

describe('open event streams', () => {
  it('are limited per principal and in all: 429 with Retry-After, counted in /metrics', async () => {
    const { call, session } = await listening({ streamLimits: { perPrincipal: 2, total: 3 } });
    const alices = await session('alice');
    const bobs = await session('bob');
    const follow = (token: string, id: string) =>
      call('GET', `/v1/sessions/${id}/events`, { token });
    const first = await follow('alice', alices);
    const second = await follow('alice', alices);
    const third = await follow('alice', alices);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(await codeOf(third)).toBe('too_many_streams');
    // Another principal has room of their own, up to the server's total.
    const bobFirst = await follow('bob', bobs);
    expect(bobFirst.status).toBe(200);
    const bobSecond = await follow('bob', bobs);
    expect(bobSecond.status).toBe(429);
    const metrics = await (await call('GET', '/metrics')).text();
    expect(metrics).toContain('parley_sse_clients 3');
    expect(metrics).toContain('parley_streams_refused_total{limit="principal"} 1');
    expect(metrics).toContain('parley_streams_refused_total{limit="total"} 1');
    // A stream that ends gives its place back.
    await first.body?.cancel();
    const statusOf = async (response: Response): Promise<number> => {
      await response.body?.cancel();
      return response.status;
    };
    await expect.poll(async () => statusOf(await follow('alice', alices))).toBe(200);
    expect(await Promise.all([second, bobFirst].map(statusOf))).toEqual([200, 200]);
  });
});

describe('headers', () => {
  it('nosniff everywhere, no-store on /v1, no-referrer, WWW-Authenticate on 401', async () => {
    const { call, session } = await listening();
    for (const response of [await call('GET', '/healthz'), await call('GET', '/v1/sessions')]) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const listed = await call('GET', '/v1/sessions', { token: 'alice' });
    expect(listed.headers.get('cache-control')).toBe('no-store');
    const bare = await call('GET', '/v1/sessions');
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await call('GET', '/v1/sessions', { token: 'mallory' });
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const page = await call('GET', '/');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const stream = await call('GET', `/v1/sessions/${await session()}/events`, { token: 'alice' });
    expect(stream.headers.get('cache-control')).toBe('no-store');
    expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
    await stream.body?.cancel();
  });
});

describe('refusals', () => {
  it('are logged with principal, session and reason; a running keyed request says when to retry', async () => {
    const lines: Logged[] = [];
    const { call, session } = await listening({
      logger: keep(lines),
      mayAnswer: () => false,
    });
    const id = await session();
    const sse = { accept: 'text/event-stream', 'idempotency-key': 'k1' };
    const body = JSON.stringify({ input: 'write a note' });
    const first = await call('POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body,
      headers: sse,
    });
    const again = await call('POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body,
      headers: { 'idempotency-key': 'k1' },
    });
    // The first may have settled already: then the retry is its replay.
    if (again.status === 409) {
      expect(await codeOf(again)).toBe('idempotent_request_running');
      expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } else {
      expect(again.status).toBe(200);
    }
    const frames = await readFrames(first);
    const parked = frames.find((frame) => frame.event === 'REQUIRE_USER_CONFIRM');
    const waiting = z
      .object({ replyId: z.string(), toolCalls: z.array(z.record(z.string(), z.unknown())) })
      .parse(JSON.parse(parked?.data ?? ''));
    const answer = await call('POST', `/v1/sessions/${id}/replies`, {
      token: 'ann',
      body: JSON.stringify({
        input: {
          type: 'USER_CONFIRM_RESULT',
          replyId: waiting.replyId,
          confirmResults: waiting.toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
        },
      }),
    });
    expect(answer.status).toBe(403);
    const refusal = lines.find((line) => line.fields['status'] === 403);
    expect(refusal?.fields).toMatchObject({ principal: 'ann', sessionId: id });
    expect(typeof refusal?.fields['reason']).toBe('string');
  });
});

describe('principal ids and paths', () => {
  it('refuses a principal whose id is not well-formed Unicode (a lone surrogate) with 401', async () => {
    const ids: Record<string, string> = { eve: 'eve\ud800', look: 'eve\ufffd', empty: '' };
    const { call } = await listening({
      authenticate: (request) => {
        const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
        const id = token === undefined ? undefined : ids[token];
        return id === undefined ? null : { id };
      },
    });
    for (const token of ['eve', 'empty']) {
      const refused = await call('POST', '/v1/sessions', { token });
      expect(refused.status).toBe(401);
      expect(await codeOf(refused)).toBe('unauthenticated');
    }
    const created = await call('POST', '/v1/sessions', { token: 'look' });
    expect(created.status).toBe(201);
    expect(z.object({ owner: z.string() }).parse(await created.json()).owner).toBe('eve\ufffd');
  });

  it('answers a malformed %-escape with 401 without credentials (logged) and 400 with them, never 500', async () => {
    const lines: Logged[] = [];
    const { call } = await listening({ logger: keep(lines) });
    for (const path of ['/v1/sessions/%ZZ', '/v1/sessions/%E2%82', '/v1/sessions/%ZZ/replies']) {
      const anonymous = await call('GET', path);
      expect(anonymous.status).toBe(401);
      const named = await call('GET', path, { token: 'alice' });
      expect(named.status).toBe(400);
      expect(await codeOf(named)).toBe('invalid_request');
    }
    const logged = lines.filter((line) => line.fields['status'] === 401);
    expect(logged).toHaveLength(3);
    expect(logged[0]?.fields).toMatchObject({ sessionId: '%ZZ', principal: null });
    expect(lines.filter((line) => line.message === 'A request failed.')).toEqual([]);
  });
});
