// Shared by the server's tests: an agent whose model asks to write a note
// and then says it is done, a counting tool, principals by bearer name, and
// an SSE reader on eventsource-parser. Not exported from the package.
import { InMemorySessionStore, Toolkit, tool } from '@parley/core';
import type { ChatRequest, SessionAgentOptions } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import { createServer } from '../src/http/create-server.js';
import type { ParleyServer, ServerOptions } from '../src/http/create-server.js';
import type { Principal } from '../src/auth/principal.js';

/** One SSE frame as a client parses it. */
export type Frame = { id: string | undefined; event: string | undefined; data: string };

/**
 * Reads a response body as text, chunk by chunk, handing each chunk to
 * `enough`, until it says so or the body ends; then cancels the body.
 * Resolves to all the text read.
 */
export async function readText(
  response: Response,
  enough: (chunk: string, all: string) => boolean,
): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let all = '';
  for (;;) {
    const chunk = await reader.read();
    const value: unknown = chunk.value;
    if (chunk.done || !(value instanceof Uint8Array)) break;
    const text = decoder.decode(value, { stream: true });
    all += text;
    if (enough(text, all)) break;
  }
  await reader.cancel();
  return all;
}

/** Every frame of an SSE response body, in order, until it ends. */
export async function readFrames(response: Response): Promise<Frame[]> {
  const frames: Frame[] = [];
  const parser = createParser({
    onEvent: (event) => frames.push({ id: event.id, event: event.event, data: event.data }),
  });
  await readText(response, (text) => {
    parser.feed(text);
    return false;
  });
  return frames;
}

/** Whether the last message of the request carries a tool result (the note was written or refused). */
function answered(request: ChatRequest): boolean {
  const last = request.messages.at(-1);
  return (
    last !== undefined &&
    typeof last.content !== 'string' &&
    last.content.some((block) => block.type === 'tool_result')
  );
}

/** Agent options whose model asks to write a note, then says "done"; `runs` counts the writes. */
export function noteAgent(runs: Map<string, number>): SessionAgentOptions {
  const writeNote = tool({
    name: 'write_note',
    description: 'Write a note.',
    input: z.object({ text: z.string() }),
    execute: ({ text }, context) => {
      runs.set(context.toolCallId, (runs.get(context.toolCallId) ?? 0) + 1);
      return `wrote ${text}`;
    },
  });
  const model = new ScriptedModel(
    [
      (request) =>
        answered(request)
          ? { text: 'done, the note is written' }
          : {
              text: 'I will write it.',
              toolCalls: [{ name: 'write_note', input: { text: 'hi' } }],
            },
    ],
    { repeatLast: true, chunkSize: 4, record: false },
  );
  return {
    name: 'assistant',
    systemPrompt: 'Take notes.',
    model,
    toolkit: new Toolkit([writeNote]),
  };
}

/** Principals by bearer token: `alice`, `bob` (owners) and `ann` (approver). */
export const principals: Record<string, Principal> = {
  alice: { id: 'alice' },
  bob: { id: 'bob' },
  ann: { id: 'ann', roles: ['approver'] },
};

/** A server on an in-memory store whose callers are `principals`. */
export function testServer(
  runs: Map<string, number>,
  options: Partial<ServerOptions> = {},
): ParleyServer {
  return createServer({
    store: new InMemorySessionStore(),
    agent: noteAgent(runs),
    authenticate: (request) => {
      const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      return token === undefined ? null : (principals[token] ?? null);
    },
    ...options,
  });
}

/** A request to `server` as alice (the owner in `principals`), with `body` sent as JSON when given. */
export function callAsAlice(
  server: ParleyServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return server.fetch(
    new Request(`http://parley.test${path}`, {
      method,
      headers: {
        authorization: 'Bearer alice',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

/** A POST of `body` as JSON to `server`, with `headers` besides the content type. */
export function postJson(
  server: ParleyServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.fetch(
    new Request(`http://parley.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}
