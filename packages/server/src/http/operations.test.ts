import { InMemorySessionStore } from '@parley/core';
import type { ChatChunk, ChatModel, Logger } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { callAsAlice, principals, readText, testServer } from '../../test/support.js';
import type { ParleyServer } from './create-server.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';

const base = 'http://parley.test';

async function sample(server: ParleyServer, name: string, token?: string) {
  const response = await server.fetch(
    new Request(`${base}/metrics`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    }),
  );
  const text = await response.text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/** A logger that keeps what it was told at `error`. */
function keptErrors(): { logger: Logger; errors: string[] } {
  const errors: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (message) => errors.push(message),
  };
  return { logger, errors };
}

describe('request timeouts', () => {
  it('answers a request that takes too long with 503 request_timeout, and leaves event streams alone', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    await log.createSession({ id: 's1', owner: 'alice', createdAt: new Date().toISOString() });
    let slow = true;
    const server = testServer(new Map(), {
      log,
      requestTimeoutMs: 30,
      // Slow to authenticate: long enough for the timeout, short enough for a test.
      authenticate: async () => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 150));
        return principals['alice'] ?? null;
      },
    });
    const timedOut = await callAsAlice(server, 'GET', '/v1/sessions');
    expect(timedOut.status).toBe(503);
    expect(timedOut.headers.get('content-type')).toContain('application/problem+json');
    expect(await timedOut.json()).toMatchObject({ status: 503, code: 'request_timeout' });

    const stream = await callAsAlice(server, 'GET', '/v1/sessions/s1/events');
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.body?.cancel();

    slow = false;
    expect((await callAsAlice(server, 'GET', '/v1/sessions')).status).toBe(200);
    await server.close();
  });
});

describe('GET /metrics access', () => {
  it('is public by default, and asks for credentials with metricsAccess: authenticated', async () => {
    const open = testServer(new Map());
    expect(await sample(open, 'parley_sse_clients')).toBe(0);
    const guarded = testServer(new Map(), { metricsAccess: 'authenticated' });
    const refused = await guarded.fetch(new Request(`${base}/metrics`));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'unauthenticated' });
    expect(await sample(guarded, 'parley_sse_clients', 'alice')).toBe(0);
    await open.close();
    await guarded.close();
  });
});

describe('the round-trip histogram', () => {
  it("measures from the POST to the reply's first event, not to its end", async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const model: ChatModel = {
      name: 'gated',
      async *stream(): AsyncGenerator<ChatChunk> {
        yield { type: 'text_delta', delta: 'Wait' };
        await gate;
        yield { type: 'finish', finishedReason: 'stop' };
      },
    };
    const server = testServer(new Map(), { agent: { name: 'assistant', model } });
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    const response = await server.fetch(
      new Request(`${base}/v1/sessions/${id}/replies`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer alice',
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ input: 'hello' }),
      }),
    );
    const name = 'parley_reply_round_trip_seconds_count{kind="message"}';
    let counted: number | undefined;
    await readText(response, () => true);
    for (let tries = 0; tries < 100 && counted !== 1; tries += 1) {
      counted = await sample(server, name);
      if (counted !== 1) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Counted while the reply is still running: its model waits on the gate.
    expect(counted).toBe(1);
    open();
    await server.close();
  });
});

describe('the logger', () => {
  it('is told of a request that failed with a 500, whose detail the caller does not see', async () => {
    const { logger, errors } = keptErrors();
    class BrokenStore extends InMemorySessionStore {
      override load(): Promise<undefined> {
        return Promise.reject(new Error('disk gone at /var/secret'));
      }
    }
    const server = testServer(new Map(), { store: new BrokenStore(), logger });
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    const failed = await callAsAlice(server, 'GET', `/v1/sessions/${id}`);
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('secret');
    expect(errors).toEqual(['A request failed.']);
    await server.close();
  });
});
