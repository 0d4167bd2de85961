import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callAsAlice, noteAgent, testServer } from '../test/support.js';
import type { ParleyServer } from './create-server.js';

const summarySchema = z.object({
  status: z.string(),
  waiting: z
    .object({
      replyId: z.string(),
      deadline: z.string().nullable(),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.string() })),
    })
    .nullable(),
});
type Summary = z.infer<typeof summarySchema>;

async function summaryOf(server: ParleyServer, id: string): Promise<Summary> {
  return summarySchema.parse(await (await callAsAlice(server, 'GET', `/v1/sessions/${id}`)).json());
}

describe('the expiry timer', () => {
  it('settles a parked reply past its deadline, and a late answer gets 410', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs, {
      agent: { ...noteAgent(runs), parkTimeout: 50 },
      expireEveryMs: 20,
    });
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    expect(
      (await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, { input: 'note' })).status,
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
    const approvals = (await (await callAsAlice(server, 'GET', '/v1/approvals')).json()) as {
      approvals: unknown[];
    };
    expect(approvals.approvals).toEqual([]);

    const late = await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, {
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
