// Every route that takes a body, fed bodies of every shape over real HTTP
// (fast-check): malformed text, any JSON, JSON nested thousands deep, and
// near-valid inputs. No request may get a 5xx from its shape alone.
import { InMemorySessionStore } from '@parley/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noteAgent, principals } from '../../test/support.js';
import { createServer } from './create-server.js';
import type { ParleyServer } from './create-server.js';

let server: ParleyServer;
let url = '';
let session = '';
const failures: string[] = [];

beforeAll(async () => {
  server = createServer({
    store: new InMemorySessionStore(),
    agent: noteAgent(new Map()),
    authenticate: (request) =>
      request.headers.get('authorization') === 'Bearer alice'
        ? (principals['alice'] ?? null)
        : null,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message, fields) => failures.push(`${message} ${JSON.stringify(fields)}`),
    },
    graceMs: 10,
  });
  ({ url } = await server.listen({ port: 0 }));
  const created = await fetch(`${url}/v1/sessions`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice' },
  });
  session = z.object({ id: z.string() }).parse(await created.json()).id;
});

afterAll(async () => {
  await server.close();
});

/** Text nested `levels` deep in arrays, objects, or both by turns. */
const nested = fc
  .tuple(fc.noBias(fc.integer({ min: 1, max: 20_000 })), fc.constantFrom('[', '{"a":', 'mixed'))
  .map(([levels, open]) => {
    const opener = (level: number): string =>
      open === 'mixed' ? (level % 2 === 0 ? '[' : '{"a":') : open;
    const closer = (level: number): string => (opener(level) === '[' ? ']' : '}');
    let text = '0';
    for (let level = levels - 1; level >= 0; level -= 1)
      text = `${opener(level)}${text}${closer(level)}`;
    return text;
  });

const anyJson = fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value));

/** Inputs close to what the routes take, with any values in their fields. */
const nearValid = fc
  .record({
    input: fc.oneof(
      fc.string(),
      fc.record({
        role: fc.constantFrom('user', 'assistant', 'tool'),
        content: fc.oneof(fc.string(), fc.jsonValue()),
        metadata: fc.jsonValue(),
      }),
      fc.record({
        type: fc.constantFrom('USER_CONFIRM_RESULT', 'EXTERNAL_EXECUTION_RESULT', 'USER_INTERRUPT'),
        replyId: fc.string(),
        confirmResults: fc.jsonValue(),
        executionResults: fc.jsonValue(),
      }),
    ),
    threadId: fc.oneof(fc.string(), fc.constant('fuzz-thread')),
    runId: fc.string(),
    messages: fc.jsonValue(),
    tools: fc.jsonValue(),
    context: fc.jsonValue(),
    state: fc.jsonValue(),
    resume: fc.jsonValue(),
    toolName: fc.string(),
    ruleContent: fc.option(fc.string()),
    behavior: fc.constantFrom('allow', 'deny', 'ask', 'maybe'),
  })
  .chain((record) => fc.subarray(Object.keys(record)).map((keys) => pick(record, keys)))
  .map((value) => JSON.stringify(value));

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => keys.includes(key)));
}

/** A near-valid input with one of its values (at any depth) replaced by deeply nested JSON. */
const deepInside = fc.tuple(nearValid, nested, fc.nat()).map(([body, deep, at]) => {
  const places = [...body.matchAll(/:(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)/g)];
  const place = places[at % Math.max(1, places.length)];
  if (place === undefined) return deep;
  const start = place.index + 1;
  return `${body.slice(0, start)}${deep}${body.slice(start + place[0].length - 1)}`;
});

/**
 * Valid inputs of each route with one free value (a message's metadata, an
 * AG-UI run's state or forwarded props, a rule's content) any JSON, or
 * deeply nested: what the schemas let through to the code behind them.
 */
const validAround = fc
  .tuple(
    fc.constantFrom(
      '{"input":{"role":"user","content":"hi","metadata":@}}',
      '{"input":@}',
      '{"threadId":"fuzz-thread","runId":"#","messages":[{"id":"#","role":"user","content":"hi"}],"tools":[],"context":[],"forwardedProps":{},"state":@}',
      '{"threadId":"fuzz-thread","runId":"#","messages":[],"tools":[],"context":[],"state":{},"forwardedProps":@}',
      '{"toolName":"write_note","ruleContent":@,"behavior":"allow"}',
    ),
    fc.oneof(anyJson, nested),
    fc.uuid(),
  )
  .map(([template, value, id]) => template.replace('@', value).replaceAll('#', id));

const bodies = fc.oneof(
  fc.string({ unit: 'binary' }),
  anyJson,
  nested,
  nearValid,
  deepInside,
  validAround,
);

/** Every POST route of the OpenAPI document, with a real session id in its path. */
async function postRoutes(): Promise<string[]> {
  const document = z
    .object({ paths: z.record(z.string(), z.record(z.string(), z.unknown())) })
    .parse(await (await fetch(`${url}/v1/openapi.json`)).json());
  return Object.entries(document.paths)
    .filter(([, methods]) => 'post' in methods)
    .map(([path]) => path.replace('{id}', session));
}

describe('request bodies of every shape', () => {
  it('never get a 5xx', async () => {
    const routes = await postRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(5);
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(bodies, fc.boolean(), async (body, stream) => {
          const response = await fetch(`${url}${route}`, {
            method: 'POST',
            headers: {
              authorization: 'Bearer alice',
              'content-type': 'application/json',
              ...(stream ? { accept: 'text/event-stream' } : {}),
            },
            body,
          });
          await response.body?.cancel();
          expect(response.status, `${route} ${body.slice(0, 200)}`).toBeLessThan(500);
        }),
        { numRuns: 60 },
      );
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
