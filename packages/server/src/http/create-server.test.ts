import { describe, expect, it, vi } from 'vitest';
import { readFrames, readText, testServer } from '../../test/support.js';
import type { ParleyServer } from './create-server.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

const base = 'http://parley.test';

function call(
  server: ParleyServer,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return server.fetch(
    new Request(`${base}${path}`, {
      method,
      headers,
      ...(options.body === undefined
        ? {}
        : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    }),
  );
}

async function created(server: ParleyServer, token = 'alice'): Promise<string> {
  const response = await call(server, 'POST', '/v1/sessions', { token });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { id: string; owner: string };
  expect(body.owner).toBe(token);
  return body.id;
}

type Waiting = {
  replyId: string;
  toolCalls: { id: string; name: string; input: string; awaiting: string }[];
};

async function waitingOf(server: ParleyServer, id: string): Promise<Waiting> {
  const response = await call(server, 'GET', `/v1/sessions/${id}`, { token: 'alice' });
  const summary = (await response.json()) as { status: string; waiting: Waiting | null };
  expect(summary.status).toBe('waiting');
  if (summary.waiting === null) throw new Error('not waiting');
  return summary.waiting;
}

function confirmation(waiting: Waiting, confirmed = true) {
  return {
    input: {
      type: 'USER_CONFIRM_RESULT',
      replyId: waiting.replyId,
      confirmResults: waiting.toolCalls.map(({ id, name, input }) => ({
        confirmed,
        toolCall: { type: 'tool_call', id, name, input, state: 'asking', suggestedRules: [] },
      })),
    },
  };
}

async function problemOf(
  response: Response,
): Promise<{ status: number; code: string; detail: string }> {
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  return (await response.json()) as { status: number; code: string; detail: string };
}

describe('createServer', () => {
  it('parks a reply, shows the waiting call, and runs it once when the owner confirms', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const id = await created(server);
    const parked = await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: { input: 'write a note' },
    });
    expect(parked.status).toBe(200);
    const notice = (await parked.json()) as { message: { finishedReason: unknown } };
    expect(notice.message.finishedReason).toBeNull();
    const waiting = await waitingOf(server, id);
    expect(waiting.toolCalls.map((toolCall) => [toolCall.name, toolCall.awaiting])).toEqual([
      ['write_note', 'confirm'],
    ]);
    const inbox = async (token: string): Promise<string[]> => {
      const response = await call(server, 'GET', '/v1/approvals', { token });
      const body = (await response.json()) as {
        approvals: { sessionId: string; toolCall: { name: string } }[];
      };
      return body.approvals.map((approval) => `${approval.sessionId}:${approval.toolCall.name}`);
    };
    expect(await inbox('ann')).toEqual([`${id}:write_note`]);
    expect(await inbox('alice')).toEqual([`${id}:write_note`]);
    expect(await inbox('bob')).toEqual([]);
    const done = await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'ann',
      body: confirmation(waiting),
    });
    expect(done.status).toBe(200);
    const final = (await done.json()) as { message: { finishedReason: string } };
    expect(final.message.finishedReason).toBe('completed');
    expect([...runs.values()]).toEqual([1]);
    expect(await inbox('ann')).toEqual([]);
    const audit = await call(server, 'GET', `/v1/sessions/${id}/audit`, { token: 'alice' });
    const records = (
      (await audit.json()) as { records: { decision: string; approver: string | null }[] }
    ).records;
    expect(records.find((record) => record.decision === 'confirmed')?.approver).toBe('ann');
  });

  it("indexes a park and an end with the reply's last events, in their append", async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const refreshes = vi.spyOn(log, 'setWaiting');
    const appends = vi.spyOn(log, 'append');
    const server = testServer(new Map(), { log });
    const id = await created(server);
    await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: { input: 'write a note' },
    });
    const waiting = await waitingOf(server, id);
    expect((await log.listWaiting('alice')).map((approval) => approval.toolCall.id)).toEqual(
      waiting.toolCalls.map((toolCall) => toolCall.id),
    );
    const parkedWith = appends.mock.calls.at(-1)?.[3]?.waiting;
    expect(parkedWith?.approvals).toHaveLength(1);
    await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: confirmation(waiting),
    });
    expect(await log.listWaiting('alice')).toEqual([]);
    expect(appends.mock.calls.at(-1)?.[3]?.waiting?.approvals).toEqual([]);
    expect(refreshes).not.toHaveBeenCalled();
    await server.close();
    log.close();
  });

  it('streams a reply as SSE numbered from 1 and replays after Last-Event-ID exactly once', async () => {
    const server = testServer(new Map());
    const id = await created(server);
    const streamed = await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: { input: 'write a note' },
      headers: { accept: 'text/event-stream' },
    });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const frames = await readFrames(streamed);
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, index) => String(index + 1)));
    expect(frames.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    expect(frames.some((frame) => frame.event === 'TEXT_BLOCK_DELTA')).toBe(true);
    for (const frame of frames) {
      expect((JSON.parse(frame.data) as { type: string }).type).toBe(frame.event);
    }
    const controller = new AbortController();
    const replay = await server.fetch(
      new Request(`${base}/v1/sessions/${id}/events`, {
        headers: { authorization: 'Bearer alice', 'last-event-id': '3' },
        signal: controller.signal,
      }),
    );
    const text = await readText(replay, (_, all) => all.includes(`id: ${frames.length}\n`));
    controller.abort();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(frames.slice(3).map((frame) => Number(frame.id)));
  });

  it('refuses hostile callers and bad input with the documented status, changing nothing', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs, { bodyLimit: 1024 });
    const id = await created(server);
    await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: { input: 'go' },
    });
    const waiting = await waitingOf(server, id);
    const before = await (
      await call(server, 'GET', `/v1/sessions/${id}/messages`, { token: 'alice' })
    ).text();

    const cases: [Response, number, string][] = [
      [await call(server, 'GET', `/v1/sessions/${id}`), 401, 'unauthenticated'],
      [
        await call(server, 'GET', `/v1/sessions/${id}`, { token: 'mallory' }),
        401,
        'unauthenticated',
      ],
      [await call(server, 'GET', `/v1/sessions/${id}`, { token: 'bob' }), 404, 'session_not_found'],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'bob',
          body: confirmation(waiting),
        }),
        404,
        'session_not_found',
      ],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'ann',
          body: { input: 'hi' },
        }),
        403,
        'forbidden',
      ],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'alice',
          body: '{"input": ',
        }),
        400,
        'invalid_request',
      ],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'alice',
          body: { input: 'x'.repeat(2048) },
        }),
        413,
        'body_too_large',
      ],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'alice',
          body: confirmation({ ...waiting, replyId: 'not-the-reply' }),
        }),
        409,
        'stale_reply',
      ],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'alice',
          body: confirmation({
            ...waiting,
            toolCalls: waiting.toolCalls.map((toolCall) => ({ ...toolCall, id: 'no-such-call' })),
          }),
        }),
        400,
        'unknown_tool_call',
      ],
      [
        await call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'alice',
          body: { input: { type: 'USER_CONFIRM_RESULT', replyId: 7 } },
        }),
        400,
        'invalid_event',
      ],
      [
        await call(server, 'GET', `/v1/sessions/${id}/events`, {
          token: 'alice',
          headers: { 'last-event-id': '1; DROP TABLE' },
        }),
        400,
        'invalid_request',
      ],
    ];
    for (const [response, status, code] of cases) {
      expect(response.status).toBe(status);
      expect(await problemOf(response)).toMatchObject({ status, code });
    }
    const after = await (
      await call(server, 'GET', `/v1/sessions/${id}/messages`, { token: 'alice' })
    ).text();
    expect(after).toBe(before);
    expect(runs.size).toBe(0);
    expect((await waitingOf(server, id)).replyId).toBe(waiting.replyId);
  });

  it('lets one of two concurrent confirmations win; the tool runs once', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const id = await created(server);
    await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: { input: 'go' },
    });
    const waiting = await waitingOf(server, id);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(server, 'POST', `/v1/sessions/${id}/replies`, {
          token: 'alice',
          body: confirmation(waiting),
        }),
      ),
    );
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect([...runs.values()]).toEqual([1]);
  });

  it('lists only the caller’s sessions and serves an OpenAPI 3.1 document', async () => {
    const server = testServer(new Map());
    const mine = await created(server, 'alice');
    await created(server, 'bob');
    const list = await call(server, 'GET', '/v1/sessions', { token: 'alice' });
    const body = (await list.json()) as { sessions: { id: string }[]; next: string | null };
    expect(body).toMatchObject({ sessions: [{ id: mine }], next: null });
    const document = (await (await call(server, 'GET', '/v1/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const replyParameters = document.paths['/v1/sessions/{id}/replies']?.['post']?.parameters ?? [];
    expect(replyParameters.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(
      expect.arrayContaining(['path:id', 'header:idempotency-key']),
    );
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/sessions',
        '/v1/sessions/{id}/replies',
        '/v1/sessions/{id}/events',
      ]),
    );
  });

  it('asks mayAnswer with the principal as approver; a refusal is 403 and leaves the reply parked', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs, { mayAnswer: ({ approver }) => approver === 'alice' });
    const id = await created(server);
    await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: { input: 'go' },
    });
    const waiting = await waitingOf(server, id);
    const refused = await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'ann',
      body: confirmation(waiting),
    });
    expect(await problemOf(refused)).toMatchObject({ status: 403, code: 'answer_not_allowed' });
    const cancelled = await call(server, 'POST', `/v1/sessions/${id}/cancel`, { token: 'ann' });
    expect(await problemOf(cancelled)).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await waitingOf(server, id)).replyId).toBe(waiting.replyId);
    expect(runs.size).toBe(0);
    const allowed = await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      token: 'alice',
      body: confirmation(waiting),
    });
    expect(allowed.status).toBe(200);
    expect([...runs.values()]).toEqual([1]);
  });

  it('gives the first outcome again for a repeated Idempotency-Key, and 422 for another body under it', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const id = await created(server);
    const keyed = (key: string, body: unknown, accept?: string) =>
      call(server, 'POST', `/v1/sessions/${id}/replies`, {
        token: 'alice',
        body,
        headers: { 'idempotency-key': key, ...(accept === undefined ? {} : { accept }) },
      });
    const first = await keyed('k1', { input: 'go' });
    const again = await keyed('k1', { input: 'go' });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(await first.text());
    const replayed = await readFrames(await keyed('k1', { input: 'go' }, 'text/event-stream'));
    expect(replayed.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    expect(replayed[0]?.id).toBe('1');
    expect(await problemOf(await keyed('k1', { input: 'something else' }))).toMatchObject({
      status: 422,
      code: 'idempotency_key_reused',
    });
    const waiting = await waitingOf(server, id);
    const confirmed = await keyed('k2', confirmation(waiting));
    const retried = await keyed('k2', confirmation(waiting));
    expect(retried.status).toBe(200);
    expect(await retried.text()).toBe(await confirmed.text());
    expect([...runs.values()]).toEqual([1]);
    expect(await problemOf(await keyed('k'.repeat(201), { input: 'go' }))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    // A refused request leaves its key unused.
    const stale = confirmation({ ...waiting, replyId: 'old' });
    expect((await keyed('k3', stale)).status).toBe(409);
    expect((await keyed('k3', { input: 'a new message' })).status).toBe(200);
  });
});
