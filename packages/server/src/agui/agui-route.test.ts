import { EventType } from '@ag-ui/core';
import { EventSchemas, RunFinishedEventSchema } from '@ag-ui/core/schemas';
import { InMemorySessionStore, Sessions, Toolkit, tool } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noteAgent, readFrames, testServer } from '../../test/support.js';
import type { ParleyServer } from '../http/create-server.js';

type Event = Record<string, unknown> & { type: string };

function post(server: ParleyServer, body: unknown, token = 'alice'): Promise<Response> {
  return server.fetch(
    new Request('http://parley.test/v1/agui', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(body),
    }),
  );
}

/** A run's events, each checked against AG-UI's schema. */
async function eventsOf(response: Response): Promise<Event[]> {
  expect(response.status).toBe(200);
  const events: Event[] = [];
  for (const frame of await readFrames(response)) {
    const event: unknown = JSON.parse(frame.data);
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, frame.data).toBe(true);
    if (parsed.success) events.push({ ...parsed.data, type: String(parsed.data.type) });
  }
  return events;
}

function outcomeOf(events: Event[]) {
  return RunFinishedEventSchema.parse(events.at(-1)).outcome;
}

function interruptIds(events: Event[]): string[] {
  const outcome = outcomeOf(events);
  return outcome?.type === 'interrupt' ? outcome.interrupts.map((interrupt) => interrupt.id) : [];
}

const input = (threadId: string, runId: string, extra: Record<string, unknown> = {}) => ({
  threadId,
  runId,
  messages: [{ id: `${threadId}-u1`, role: 'user', content: 'write a note' }],
  tools: [],
  context: [],
  ...extra,
});

async function problemCode(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { code: string };
  return [response.status, body.code];
}

describe('POST /v1/agui', () => {
  it('refuses a malformed input with 400 and creates nothing', async () => {
    const server = testServer(new Map());
    expect(await problemCode(await post(server, { threadId: 't0', messages: [] }))).toEqual([
      400,
      'invalid_request',
    ]);
    const read = await server.fetch(
      new Request('http://parley.test/v1/sessions/t0', {
        headers: { authorization: 'Bearer alice' },
      }),
    );
    expect(read.status).toBe(404);
  });

  it('refuses a client tool whose name providers refuse, with 400', async () => {
    const server = testServer(new Map());
    const tools = [{ name: 'notes.write', description: 'Write a note.' }];
    expect(await problemCode(await post(server, input('t-bad-tool', 'r1', { tools })))).toEqual([
      400,
      'invalid_request',
    ]);
  });

  it('does not take over a stored session the server never recorded, and refuses odd thread ids', async () => {
    const store = new InMemorySessionStore();
    await new Sessions({ store, agent: noteAgent(new Map()) }).reply('elsewhere', 'hi');
    const server = testServer(new Map(), { store });
    expect(await problemCode(await post(server, input('elsewhere', 'r1')))).toEqual([
      404,
      'session_not_found',
    ]);
    expect(await problemCode(await post(server, input('../x', 'r1')))).toEqual([
      400,
      'invalid_request',
    ]);
  });

  it('warns about an unknown interrupt id, keeps an unanswered one open, and refuses a rule that was not suggested', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const first = await eventsOf(await post(server, input('t1', 'r1')));
    const [id] = interruptIds(first);
    expect(id).toMatch(/^confirm:/);
    const unknown = await eventsOf(
      await post(
        server,
        input('t1', 'r2', {
          resume: [
            { interruptId: 'confirm:nope', status: 'resolved', payload: { approved: true } },
          ],
        }),
      ),
    );
    expect(unknown[1]).toMatchObject({ type: EventType.CUSTOM, name: 'parley.warning' });
    expect(interruptIds(unknown)).toEqual([id]);
    expect(runs.size).toBe(0);
    const foreignRule = {
      toolName: 'Bash',
      ruleContent: null,
      behavior: 'allow',
      source: 'suggested',
    };
    const refused = await post(
      server,
      input('t1', 'r3', {
        resume: [
          {
            interruptId: id,
            status: 'resolved',
            payload: { approved: true, rules: [foreignRule] },
          },
        ],
      }),
    );
    expect(await problemCode(refused)).toEqual([400, 'invalid_request']);
    const kept = {
      toolName: 'write_note',
      ruleContent: null,
      behavior: 'allow',
      source: 'suggested',
    };
    const done = await eventsOf(
      await post(
        server,
        input('t1', 'r4', {
          resume: [
            { interruptId: id, status: 'resolved', payload: { approved: true, rules: [kept] } },
          ],
        }),
      ),
    );
    expect(outcomeOf(done)).toEqual({ type: 'success' });
    expect([...runs.values()]).toEqual([1]);
    // With the rule kept, the next note is written without asking.
    const next = await eventsOf(
      await post(server, {
        ...input('t1', 'r5'),
        messages: [{ id: 't1-u2', role: 'user', content: 'another' }],
      }),
    );
    expect(outcomeOf(next)).toEqual({ type: 'success' });
    expect(runs.size).toBe(2);
  });

  it('lets an approver answer but not send messages, and hides the thread from anyone else', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const [id] = interruptIds(await eventsOf(await post(server, input('t2', 'r1'))));
    const answer = input('t2', 'r2', {
      resume: [{ interruptId: id, status: 'resolved', payload: { approved: true } }],
    });
    expect(await problemCode(await post(server, answer, 'bob'))).toEqual([
      404,
      'session_not_found',
    ]);
    const message = {
      ...input('t2', 'r3'),
      messages: [{ id: 'ann-1', role: 'user', content: 'hi' }],
    };
    expect(await problemCode(await post(server, message, 'ann'))).toEqual([403, 'forbidden']);
    expect(outcomeOf(await eventsOf(await post(server, answer, 'ann')))).toEqual({
      type: 'success',
    });
    expect([...runs.values()]).toEqual([1]);
  });

  it('refuses new messages while interrupts are open (409), and declares its capabilities', async () => {
    const server = testServer(new Map());
    await eventsOf(await post(server, input('t3', 'r1')));
    const more = {
      ...input('t3', 'r2'),
      messages: [{ id: 't3-u2', role: 'user', content: 'and?' }],
    };
    expect(await problemCode(await post(server, more))).toEqual([409, 'agent_parked']);
    const capabilities = await server.fetch(
      new Request('http://parley.test/v1/agui', { headers: { authorization: 'Bearer alice' } }),
    );
    expect(await capabilities.json()).toMatchObject({
      humanInTheLoop: {
        supported: true,
        approvals: true,
        interrupts: true,
        approveWithEdits: true,
      },
    });
    const openapi = (await (
      await server.fetch(new Request('http://parley.test/v1/openapi.json'))
    ).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths['/v1/agui'] ?? {}).sort()).toEqual(['get', 'post']);
  });

  it('answers a confirmation and an external result of one batch in one run, each checked first', async () => {
    const published: string[] = [];
    const publish = tool({
      name: 'publish',
      description: 'Publish a page.',
      input: z.object({ page: z.string() }),
      concurrencySafe: true,
      execute: ({ page }) => {
        published.push(page);
        return `published ${page}`;
      },
    });
    const measure = tool({
      name: 'measure',
      description: 'Someone measures the page.',
      input: z.object({ page: z.string() }),
      external: true,
      concurrencySafe: true,
      outputMetadata: z.strictObject({ width: z.number() }),
      checkPermissions: () => ({ behavior: 'allow', message: 'measured outside' }),
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'p1', name: 'publish', input: { page: 'home' } },
          { id: 'm1', name: 'measure', input: { page: 'home' } },
        ],
      },
      { text: 'all done' },
    ]);
    const server = testServer(new Map(), {
      agent: { name: 'assistant', model, toolkit: new Toolkit([publish, measure]) },
    });
    const first = await eventsOf(await post(server, input('t4', 'r1')));
    expect(interruptIds(first)).toEqual(['confirm:p1', 'external:m1']);
    const answer = (metadata: unknown) =>
      input('t4', `r-${JSON.stringify(metadata)}`, {
        resume: [
          { interruptId: 'confirm:p1', status: 'resolved', payload: { approved: true } },
          { interruptId: 'external:m1', status: 'resolved', payload: { output: 'wide', metadata } },
        ],
      });
    expect(await problemCode(await post(server, answer({ width: 'wide' })))).toEqual([
      400,
      'invalid_request',
    ]);
    expect(published).toEqual([]);
    const done = await eventsOf(await post(server, answer({ width: 1280 })));
    expect(outcomeOf(done)).toEqual({ type: 'success' });
    expect(published).toEqual(['home']);
    const results = done.filter((event) => event.type === 'TOOL_CALL_RESULT');
    expect(results.map((event) => event['content'])).toEqual(['published home', 'wide']);
  });
});

describe('POST /v1/agui, two runs of one thread at once', () => {
  it('runs one and refuses the other as busy, or runs both one after the other', async () => {
    const runs = new Map<string, number>();
    const server = testServer(runs);
    const both = await Promise.all([
      post(server, input('t9', 'r1')),
      post(server, {
        ...input('t9', 'r2'),
        messages: [{ id: 't9-u1', role: 'user', content: 'x' }],
      }),
    ]);
    const statuses = both.map((response) => response.status);
    expect(statuses).toContain(200);
    for (const response of both) {
      if (response.status === 200) await readFrames(response);
      else expect(await problemCode(response)).toEqual([409, 'session_busy']);
    }
  });
});
