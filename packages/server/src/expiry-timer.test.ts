import { describe, expect, it } from 'vitest';
import { noteAgent, testServer } from '../test/support.js';
import type { ParleyServer } from './create-server.js';

const base = 'http://parley.test';

function call(server: ParleyServer, method: string, path: string, body?: unknown) {
  return server.fetch(
    new Request(`${base}${path}`, {
      method,
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

type Summary = {
  status: string;
  waiting: null | {
    replyId: string;
    deadline: string | null;
    toolCalls: { id: string; name: string; input: string }[];
  };
};

async function summaryOf(server: ParleyServer, id: string): Promise<Summary> {
  return (await (await call(server, 'GET', `/v1/sessions/${id}`)).json()) as Summary;
}

describe('the expiry timer', () => {
  it('settles a parked reply past its deadline, and a late answer gets 410', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs, {
      agent: { ...noteAgent(runs), parkTimeout: 50 },
      expireEveryMs: 20,
    });
    const { id } = (await (await call(server, 'POST', '/v1/sessions')).json()) as { id: string };
    expect(
      (await call(server, 'POST', `/v1/sessions/${id}/replies`, { input: 'note' })).status,
    ).toBe(200);
    const parked = await summaryOf(server, id);
    const waiting = parked.waiting;
    if (waiting === null) throw new Error('not parked');
    expect(waiting.deadline).not.toBeNull();

    // Nobody touches the session: only the timer can settle it. Generously bounded.
    let summary = parked;
    for (let tries = 0; tries < 250 && summary.status === 'waiting'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      summary = await summaryOf(server, id);
    }
    expect(summary.status).toBe('idle');
    const approvals = (await (await call(server, 'GET', '/v1/approvals')).json()) as {
      approvals: unknown[];
    };
    expect(approvals.approvals).toEqual([]);

    const late = await call(server, 'POST', `/v1/sessions/${id}/replies`, {
      input: {
        type: 'USER_CONFIRM_RESULT',
        replyId: waiting.replyId,
        confirmResults: waiting.toolCalls.map(({ id: callId, name, input }) => ({
          confirmed: true,
          toolCall: {
            type: 'tool_call',
            id: callId,
            name,
            input,
            state: 'asking',
            suggestedRules: [],
          },
        })),
      },
    });
    expect(late.status).toBe(410);
    expect(late.headers.get('content-type')).toContain('application/problem+json');
    expect(await late.json()).toMatchObject({ status: 410, code: 'reply_expired' });
    expect([...runs.values()]).toEqual([]);
    await server.close();
  });
});
