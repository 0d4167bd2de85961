import { InMemorySessionStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callAsAlice, noteAgent, readText, testServer } from '../../test/support.js';
import type { Logger } from '@parley/core';
import { createParser } from 'eventsource-parser';
import type { ParleyServer } from '../http/create-server.js';

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

/** A store whose due list cannot be read. */
class FailingSweepStore extends InMemorySessionStore {
  override listDue(): Promise<string[]> {
    return Promise.reject(new Error('disk gone'));
  }
}

describe('the expiry timer', () => {
  it('settles a parked reply past its deadline, and a late answer gets 410', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs, {
      agent: { ...noteAgent(runs), parkTimeout: 400 },
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

    // Nobody touches the session: only the timer can settle it, and then
    // refresh the approvals index. Generously bounded.
    const approvalsOf = async () =>
      (
        (await (await callAsAlice(server, 'GET', '/v1/approvals')).json()) as {
          approvals: unknown[];
        }
      ).approvals;
    let summary = parked;
    let approvals = await approvalsOf();
    for (
      let tries = 0;
      tries < 250 && (summary.status !== 'idle' || approvals.length > 0);
      tries += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      summary = await summaryOf(server, id);
      approvals = await approvalsOf();
    }
    expect(summary.status).toBe('idle');
    expect(approvals).toEqual([]);

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

  it('puts the events of an expiry in the session log: a live follower sees them, a replay gets them', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs, {
      agent: { ...noteAgent(runs), parkTimeout: 400 },
      expireEveryMs: 20,
    });
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, { input: 'note' });
    const parkedAt = (await (await callAsAlice(server, 'GET', `/v1/sessions/${id}`)).json()) as {
      lastSeq: number;
    };

    // A follower that was there before the deadline, reading until the expiry's reply ends.
    const frames: { id: number; event: string }[] = [];
    const parser = createParser({
      onEvent: (event) => frames.push({ id: Number(event.id), event: event.event ?? '' }),
    });
    const live = await callAsAlice(
      server,
      'GET',
      `/v1/sessions/${id}/events?after=${parkedAt.lastSeq}`,
    );
    await readText(live, (text) => {
      parser.feed(text);
      return frames.some((frame) => frame.event === 'REPLY_END');
    });
    expect(frames.map((frame) => frame.id)).toEqual(
      frames.map((_, index) => parkedAt.lastSeq + 1 + index),
    );
    expect(frames.map((frame) => frame.event)).toContain('TOOL_RESULT_END');
    expect(frames.at(-1)?.event).toBe('REPLY_END');

    // A client that reconnects with the last number it saw before gets the same events.
    const replayed: { id: number; event: string }[] = [];
    const again = createParser({
      onEvent: (event) => replayed.push({ id: Number(event.id), event: event.event ?? '' }),
    });
    const replay = await server.fetch(
      new Request(`http://parley.test/v1/sessions/${id}/events`, {
        headers: { authorization: 'Bearer alice', 'last-event-id': String(parkedAt.lastSeq) },
      }),
    );
    await readText(replay, (text) => {
      again.feed(text);
      return replayed.length >= frames.length;
    });
    expect(replayed).toEqual(frames);
    // Once the sweep is over, the numbers reserved and not used are given back.
    const summaryOf = async () =>
      (await (await callAsAlice(server, 'GET', `/v1/sessions/${id}`)).json()) as {
        status: string;
        lastSeq: number;
      };
    let summary = await summaryOf();
    for (let tries = 0; tries < 100 && summary.lastSeq !== frames.at(-1)?.id; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      summary = await summaryOf();
    }
    expect(summary).toMatchObject({ status: 'idle', lastSeq: frames.at(-1)?.id });
    expect([...runs.values()]).toEqual([]);
    await server.close();
  });

  it('tells the logger when a sweep fails', async () => {
    const runs = new Map<string, number>();
    const errors: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message) => errors.push(message),
    };
    const server = testServer(runs, {
      store: new FailingSweepStore(),
      expireEveryMs: 10,
      logger,
    });
    for (let tries = 0; tries < 250 && errors.length === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(errors).toContain('The expiry sweep failed.');
    await server.close();
  });
});
