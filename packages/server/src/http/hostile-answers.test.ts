import { InMemorySessionStore, Toolkit, tool } from '@parley/core';
import type { ChatRequest } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callAsAlice, noteAgent, principals, testServer } from '../../test/support.js';
import { createServer } from './create-server.js';
import type { ParleyServer } from './create-server.js';

const waitingCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.string(),
  awaiting: z.string(),
});
type WaitingCall = z.infer<typeof waitingCallSchema>;
const summarySchema = z.object({
  status: z.string(),
  lastSeq: z.number(),
  waiting: z.object({ replyId: z.string(), toolCalls: z.array(waitingCallSchema) }).nullable(),
});
type Summary = z.infer<typeof summarySchema>;
const codeSchema = z.object({ code: z.string() });
const finalSchema = z.object({ message: z.object({ finishedReason: z.string() }) });

/** The body of a response, checked against what the contract says it is. */
async function json<T>(response: Response, schema: z.ZodType<T>): Promise<T> {
  return schema.parse(await response.json());
}

/** A server whose model asks the client to look something up, then says what it found. */
function lookupServer(): ParleyServer {
  const lookup = tool({
    name: 'lookup',
    description: 'Looked up by the client.',
    input: z.object({ q: z.string() }),
    readOnly: true,
    external: true,
    outputMetadata: z.object({ hits: z.number() }),
  });
  const answered = (request: ChatRequest): boolean => {
    const last = request.messages.at(-1);
    return (
      last !== undefined &&
      typeof last.content !== 'string' &&
      last.content.some((block) => block.type === 'tool_result')
    );
  };
  const model = new ScriptedModel(
    [
      (request) =>
        answered(request)
          ? { text: 'found it' }
          : { toolCalls: [{ name: 'lookup', input: { q: 'parley' } }] },
    ],
    { repeatLast: true, record: false },
  );
  return createServer({
    store: new InMemorySessionStore(),
    agent: { name: 'assistant', model, toolkit: new Toolkit([lookup]) },
    authenticate: () => principals['alice'] ?? null,
  });
}

async function parkedOn(
  server: ParleyServer,
  input: string,
): Promise<{ id: string; summary: Summary }> {
  const created = await json(
    await callAsAlice(server, 'POST', '/v1/sessions'),
    z.object({ id: z.string() }),
  );
  const parked = await callAsAlice(server, 'POST', `/v1/sessions/${created.id}/replies`, { input });
  expect(parked.status).toBe(200);
  const summary = await json(
    await callAsAlice(server, 'GET', `/v1/sessions/${created.id}`),
    summarySchema,
  );
  expect(summary.status).toBe('waiting');
  return { id: created.id, summary };
}

async function snapshot(server: ParleyServer, id: string): Promise<[Summary, unknown]> {
  const summary = await json(await callAsAlice(server, 'GET', `/v1/sessions/${id}`), summarySchema);
  const messages: unknown = await (
    await callAsAlice(server, 'GET', `/v1/sessions/${id}/messages`)
  ).json();
  return [summary, messages];
}

function confirmationOf(replyId: string, calls: WaitingCall[]) {
  return {
    input: {
      type: 'USER_CONFIRM_RESULT',
      replyId,
      confirmResults: calls.map(({ id, name, input }) => ({
        confirmed: true,
        toolCall: { type: 'tool_call', id, name, input, state: 'asking', suggestedRules: [] },
      })),
    },
  };
}

function resultOf(replyId: string, toolCall: WaitingCall, metadata: Record<string, unknown>) {
  return {
    input: {
      type: 'EXTERNAL_EXECUTION_RESULT',
      replyId,
      executionResults: [
        {
          type: 'tool_result',
          id: toolCall.id,
          name: toolCall.name,
          output: '3 hits',
          state: 'success',
          metadata,
        },
      ],
    },
  };
}

describe('hostile answers', () => {
  it('refuses a confirmation of a call that waits for an external result, changing nothing', async () => {
    const server = lookupServer();
    const { id, summary } = await parkedOn(server, 'look it up');
    const waiting = summary.waiting;
    if (waiting === null) throw new Error('not waiting');
    expect(waiting.toolCalls.map((toolCall) => toolCall.awaiting)).toEqual(['external']);
    const before = await snapshot(server, id);
    const refused = await callAsAlice(
      server,
      'POST',
      `/v1/sessions/${id}/replies`,
      confirmationOf(waiting.replyId, waiting.toolCalls),
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(refused, codeSchema)).code).toBe('not_waiting');
    expect(await snapshot(server, id)).toEqual(before);
  });

  it('refuses an external result that fails outputMetadata; the call stays waiting', async () => {
    const server = lookupServer();
    const { id, summary } = await parkedOn(server, 'look it up');
    const waiting = summary.waiting;
    const [toolCall] = waiting?.toolCalls ?? [];
    if (waiting === null || toolCall === undefined) throw new Error('not waiting');
    const before = await snapshot(server, id);
    const refused = await callAsAlice(
      server,
      'POST',
      `/v1/sessions/${id}/replies`,
      resultOf(waiting.replyId, toolCall, { hits: 'many' }),
    );
    expect(refused.status).toBe(400);
    expect((await json(refused, codeSchema)).code).toBe('invalid_tool_result');
    expect(await snapshot(server, id)).toEqual(before);
    const accepted = await callAsAlice(
      server,
      'POST',
      `/v1/sessions/${id}/replies`,
      resultOf(waiting.replyId, toolCall, { hits: 3 }),
    );
    expect(accepted.status).toBe(200);
    const final = await json(accepted, finalSchema);
    expect(final.message.finishedReason).toBe('completed');
  });

  it('refuses a confirmation that renames the call into another tool, past a deny rule; nothing runs', async () => {
    const runs = new Map<string, number>();
    const wiped: string[] = [];
    const wipe = tool({
      name: 'wipe',
      description: 'Wipe the notebook.',
      input: z.object({}),
      execute: (_input, context) => {
        wiped.push(context.toolCallId);
        return 'wiped';
      },
    });
    const agent = noteAgent(runs);
    const toolkit = new Toolkit([...(agent.toolkit?.list() ?? []), wipe]);
    const denyWipe = { toolName: 'wipe', ruleContent: null, behavior: 'deny', source: 'policy' };
    const server = testServer(runs, {
      agent: { ...agent, toolkit, permission: { rules: [{ ...denyWipe, behavior: 'deny' }] } },
    });
    const { id, summary } = await parkedOn(server, 'write a note');
    const waiting = summary.waiting;
    if (waiting === null) throw new Error('not waiting');
    const before = await snapshot(server, id);
    for (const token of ['alice', 'ann']) {
      const renamed = confirmationOf(
        waiting.replyId,
        waiting.toolCalls.map((call) => ({ ...call, name: 'wipe', input: '{}' })),
      );
      const response = await server.fetch(
        new Request(`http://parley.test/v1/sessions/${id}/replies`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(renamed),
        }),
      );
      expect(response.status).toBe(400);
      const problem = await json(response, z.object({ code: z.string(), detail: z.string() }));
      expect(problem.code).toBe('invalid_event');
      expect(problem.detail).toContain("cannot change it to 'wipe'");
    }
    expect(wiped).toEqual([]);
    expect(runs.size).toBe(0);
    expect(await snapshot(server, id)).toEqual(before);
    const records = await json(
      await callAsAlice(server, 'GET', `/v1/sessions/${id}/audit`),
      z.object({ records: z.array(z.object({ decision: z.string() })) }),
    );
    expect(records.records.map((record) => record.decision)).toEqual(['asked']);
  });

  it("refuses a confirmation that keeps a rule not suggested with the call (an approver's own allow)", async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const { id, summary } = await parkedOn(server, 'write a note');
    const waiting = summary.waiting;
    if (waiting === null) throw new Error('not waiting');
    const before = await snapshot(server, id);
    const body = confirmationOf(waiting.replyId, waiting.toolCalls);
    const [result] = body.input.confirmResults;
    if (result === undefined) throw new Error('no call');
    const extra = {
      toolName: 'delete_notes',
      ruleContent: null,
      behavior: 'allow',
      source: 'user',
    };
    const response = await server.fetch(
      new Request(`http://parley.test/v1/sessions/${id}/replies`, {
        method: 'POST',
        headers: { authorization: 'Bearer ann', 'content-type': 'application/json' },
        body: JSON.stringify({
          input: { ...body.input, confirmResults: [{ ...result, rules: [extra] }] },
        }),
      }),
    );
    expect(response.status).toBe(400);
    expect((await json(response, codeSchema)).code).toBe('invalid_event');
    expect(runs.size).toBe(0);
    expect(await snapshot(server, id)).toEqual(before);
  });

  it('lets exactly one of 100 concurrent identical confirmations through; the tool runs once', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const { id, summary } = await parkedOn(server, 'write a note');
    const waiting = summary.waiting;
    if (waiting === null) throw new Error('not waiting');
    const body = confirmationOf(waiting.replyId, waiting.toolCalls);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, body),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(99);
    const codes = await Promise.all(
      responses
        .filter((response) => response.status === 409)
        .map(async (response) => (await json(response, codeSchema)).code),
    );
    const raceCodes = ['stale_reply', 'concurrent_resume', 'stale_session', 'session_busy'];
    expect(codes.filter((code) => !raceCodes.includes(code))).toEqual([]);
    expect([...runs.values()]).toEqual([1]);
    const after = await json(await callAsAlice(server, 'GET', `/v1/sessions/${id}`), summarySchema);
    expect(after.status).toBe('idle');
  });
});
