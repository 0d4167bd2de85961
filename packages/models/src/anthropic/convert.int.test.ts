import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeProviderServer, sse } from '../../test/fake-provider-server.js';
import { collect, message } from '../../test/chunks.js';
import { DENIED, INTERRUPTED, PDF, PNG, REDACTED, richRequest } from '../../test/conversation.js';
import { AnthropicChatModel } from './anthropic-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

function model(): AnthropicChatModel {
  return new AnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'k', baseURL: server.url });
}

const png = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };

it('sends the conversation as Messages API messages, as the server receives it', async () => {
  server.enqueue(sse('anthropic', 'text.sse'));
  await collect(model().stream(richRequest()));
  const toolUse = (id: string) => ({
    type: 'tool_use',
    id,
    name: 'write_note',
    input: { path: `${id}.md`, content: 'x' },
  });
  expect(server.bodies()[0]).toEqual({
    model: 'claude-sonnet-4-6',
    max_tokens: 4096,
    stream: true,
    system: 'You are terse.',
    tools: [
      {
        name: 'write_note',
        description: 'Write a note.',
        input_schema: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' } },
          required: ['path', 'content'],
          additionalProperties: false,
        },
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these.' },
          png,
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            title: 'spec.pdf',
          },
          {
            type: 'text',
            text: '[audio/wav attachment "memo.wav" omitted: this model cannot read it]',
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Four notes.', signature: 'sig-abc' },
          { type: 'redacted_thinking', data: REDACTED },
          { type: 'thinking', thinking: '', signature: 'sig-only' },
          { type: 'text', text: 'Writing them.' },
          toolUse('tc1'),
          toolUse('tc2'),
          toolUse('tc3'),
          toolUse('tc4'),
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'tc1',
            content: [{ type: 'text', text: 'saved' }, png],
          },
          { type: 'tool_result', tool_use_id: 'tc2', content: DENIED, is_error: true },
          { type: 'tool_result', tool_use_id: 'tc3', content: INTERRUPTED, is_error: true },
          { type: 'tool_result', tool_use_id: 'tc4', content: 'EACCES', is_error: true },
          { type: 'text', text: 'Keep it short.' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ],
  });
});

it('moves system turns into the system prompt and drops unsigned thinking', async () => {
  server.enqueue(sse('anthropic', 'text.sse'));
  await collect(
    model().stream({
      systemPrompt: 'Base rules.',
      tools: [],
      messages: [
        message('system', 'Extra rule.'),
        message('user', 'Hi'),
        message('assistant', [
          { type: 'thinking', thinking: 'from another provider' },
          { type: 'text', text: 'Hello.' },
        ]),
        message('user', 'Bye'),
      ],
    }),
  );
  expect(server.bodies()[0]).toMatchObject({
    system: 'Base rules.\n\nExtra rule.',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Bye' }] },
    ],
  });
  expect(server.bodies()[0]).not.toHaveProperty('tools');
});
