/**
 * The agent over the real SDKs against a local server that speaks each
 * provider's streaming format: what Parley does with a turn, and what it
 * sends on the next request. Each fixture's source document is named in
 * test/fixtures/SOURCES.md.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Toolkit,
  agentTexts,
  parseAgentState,
  serializeAgentState,
  tool,
  userConfirmResultEvent,
} from '@parley/core';
import type { AgentEvent, AgentState, ChatModel } from '@parley/core';
import { FakeProviderServer, sse } from '../test/fake-provider-server.js';
import { AnthropicChatModel } from './anthropic/anthropic-chat-model.js';
import { OpenAIChatModel } from './openai/openai-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

const anthropic = (): AnthropicChatModel =>
  new AnthropicChatModel({
    model: 'claude-sonnet-4-6',
    apiKey: 'test-key',
    baseURL: server.url,
    thinking: { type: 'adaptive' },
  });

const openai = (): OpenAIChatModel =>
  new OpenAIChatModel({ model: 'gpt-4.1-mini', apiKey: 'test-key', baseURL: `${server.url}/v1` });

/** Tools: write_note asks first; list_notes takes only optional input and runs unasked. */
function tools(log: string[]): Toolkit {
  return new Toolkit([
    tool({
      name: 'write_note',
      description: 'Write a note.',
      input: z.object({ path: z.string(), content: z.string() }),
      execute: ({ path }) => {
        log.push(`write ${path}`);
        return `Wrote ${path}`;
      },
    }),
    tool({
      name: 'list_notes',
      description: 'List notes.',
      input: z.object({ folder: z.string().optional() }),
      readOnly: true,
      execute: ({ folder }) => {
        log.push(`list ${folder ?? '(all)'}`);
        return 'a.md';
      },
    }),
  ]);
}

function agentOf(model: ChatModel, toolkit: Toolkit, state?: AgentState): Agent {
  return new Agent({
    name: 'assistant',
    model,
    toolkit,
    permission: { mode: 'default' },
    ...(state === undefined ? {} : { state }),
  });
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Parks on write_note, goes through JSON text to a new Agent, confirms, and returns the next request body. */
async function parkJsonResume(first: string): Promise<{ body: unknown; log: string[] }> {
  server.enqueue(sse('anthropic', first), sse('anthropic', 'text.sse'));
  const log: string[] = [];
  const toolkit = tools(log);
  const parked = agentOf(anthropic(), toolkit);
  const events = await collect(parked.replyStream('Write the note'));
  const ask = events.at(-1);
  if (ask?.type !== 'REQUIRE_USER_CONFIRM') throw new Error(`did not park: ${ask?.type}`);
  const stored = parseAgentState(JSON.parse(serializeAgentState(parked.state)));
  const revived = agentOf(anthropic(), toolkit, stored);
  await revived.reply(
    userConfirmResultEvent({
      replyId: ask.replyId,
      confirmResults: ask.toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
    }),
  );
  return { body: server.bodies()[1], log };
}

/** The content of the assistant message of a Messages API request body. */
function assistantContent(body: unknown): unknown[] {
  const parsed = z
    .object({ messages: z.array(z.object({ role: z.string(), content: z.unknown() })) })
    .parse(body);
  const assistant = parsed.messages.find((message) => message.role === 'assistant');
  return z.array(z.unknown()).parse(assistant?.content);
}

describe('Anthropic thinking blocks across park, JSON and resume', () => {
  it('sends a signature-only thinking block back first, before the tool_use', async () => {
    const { body, log } = await parkJsonResume('thinking-omitted.sse');
    expect(log).toEqual(['write a.md']);
    expect(assistantContent(body)).toEqual([
      {
        type: 'thinking',
        thinking: '',
        signature: 'EuYBCkQYAiJAomitted0Zk5yQm9wS0J5dHlQbGFpblRleHRTaWduYXR1cmVPbmx5',
      },
      { type: 'tool_use', id: 'toolu_01Omit', name: 'write_note', input: expect.any(Object) },
    ]);
  });

  it('sends two redacted_thinking blocks back apart, in place, their data unchanged', async () => {
    const { body } = await parkJsonResume('redacted-thinking.sse');
    expect(assistantContent(body)).toEqual([
      {
        type: 'redacted_thinking',
        data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
      },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgzQ+rEdAcTeD/2nd+bLoCk=\u2028OpaqueBytes' },
      { type: 'tool_use', id: 'toolu_01Redact', name: 'write_note', input: expect.any(Object) },
    ]);
  });
});

describe('a tool call cut off by the token limit', () => {
  it.each([
    ['Anthropic stop_reason max_tokens', 'anthropic', 'max-tokens-tool-use.sse', anthropic],
    ['OpenAI finish_reason length', 'openai', 'length-tool-call.sse', openai],
  ] as const)(
    '%s: never offered or run; the model reads why',
    async (_name, provider, file, make) => {
      server.enqueue(sse(provider, file), sse(provider, 'text.sse'));
      const log: string[] = [];
      const agent = agentOf(make(), tools(log));
      const events = await collect(agent.replyStream('List my notes'));
      expect(events.map((event) => event.type)).not.toContain('REQUIRE_USER_CONFIRM');
      expect(log).toEqual([]);
      const results = events.filter((event) => event.type === 'TOOL_RESULT_END');
      expect(results).toMatchObject([{ state: 'error' }]);
      expect(JSON.stringify(server.bodies()[1])).toContain(
        JSON.stringify(agentTexts.cutOff('list_notes')).slice(1, -1),
      );
    },
  );
});
