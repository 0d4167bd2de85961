import { describe, expect, it } from 'vitest';
import { callAsAlice, testServer } from '../../test/support.js';
import type { ParleyServer } from './create-server.js';

const base = 'http://parley.test';

/** The value of one sample in Prometheus text, or undefined. */
async function sample(server: ParleyServer, name: string): Promise<number | undefined> {
  const text = await (await server.fetch(new Request(`${base}/metrics`))).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

type Waiting = { replyId: string; toolCalls: { id: string; name: string; input: string }[] };

function confirmation(waiting: Waiting) {
  return {
    input: {
      type: 'USER_CONFIRM_RESULT',
      replyId: waiting.replyId,
      confirmResults: waiting.toolCalls.map(({ id, name, input }) => ({
        confirmed: true,
        toolCall: { type: 'tool_call', id, name, input, state: 'asking', suggestedRules: [] },
      })),
    },
  };
}

describe('GET /metrics', () => {
  it('counts parked replies, answers by outcome, round trips and SSE clients', async () => {
    const server = testServer(new Map());
    const other = testServer(new Map());
    const scraped = await server.fetch(new Request(`${base}/metrics`));
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(await sample(server, 'parley_parked_replies')).toBe(0);

    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    expect(
      (await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, { input: 'note' })).status,
    ).toBe(200);
    expect(await sample(server, 'parley_parked_replies')).toBe(1);
    const summary = (await (await callAsAlice(server, 'GET', `/v1/sessions/${id}`)).json()) as {
      waiting: Waiting;
    };

    const answer = confirmation(summary.waiting);
    expect((await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, answer)).status).toBe(
      200,
    );
    expect((await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, answer)).status).toBe(
      409,
    );
    expect(await sample(server, 'parley_parked_replies')).toBe(0);
    expect(await sample(server, 'parley_answers_total{outcome="accepted"}')).toBe(1);
    expect(await sample(server, 'parley_answers_total{outcome="stale_reply"}')).toBe(1);
    expect(await sample(server, 'parley_reply_round_trip_seconds_count{kind="message"}')).toBe(1);
    expect(await sample(server, 'parley_reply_round_trip_seconds_count{kind="answer"}')).toBe(1);
    // Each server has a registry of its own.
    expect(await sample(other, 'parley_answers_total{outcome="accepted"}')).toBeUndefined();

    const events = await callAsAlice(server, 'GET', `/v1/sessions/${id}/events`);
    expect(events.status).toBe(200);
    expect(await sample(server, 'parley_sse_clients')).toBe(1);
    await events.body?.cancel();
    let open = await sample(server, 'parley_sse_clients');
    for (let tries = 0; tries < 250 && open !== 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      open = await sample(server, 'parley_sse_clients');
    }
    expect(open).toBe(0);
    await server.close();
    await other.close();
  });
});
