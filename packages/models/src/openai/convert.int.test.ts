import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeProviderServer, sse } from '../../test/fake-provider-server.js';
import { collect } from '../../test/chunks.js';
import { DENIED, INTERRUPTED, PDF, PNG, richRequest } from '../../test/conversation.js';
import { OpenAIChatModel } from './openai-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

it('sends the conversation as Chat Completions messages, as the server receives it', async () => {
  server.enqueue(sse('openai', 'text.sse'));
  const model = new OpenAIChatModel({
    model: 'gpt-4.1-mini',
    apiKey: 'test-key',
    baseURL: `${server.url}/v1`,
    maxTokens: 256,
    temperature: 0.2,
  });
  await collect(model.stream(richRequest()));
  const call = (id: string) => ({
    id,
    type: 'function',
    function: { name: 'write_note', arguments: JSON.stringify({ path: `${id}.md`, content: 'x' }) },
  });
  expect(server.requests[0]?.headers['authorization']).toBe('Bearer test-key');
  expect(server.bodies()[0]).toEqual({
    model: 'gpt-4.1-mini',
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: 256,
    temperature: 0.2,
    tools: [
      {
        type: 'function',
        function: {
          name: 'write_note',
          description: 'Write a note.',
          parameters: {
            type: 'object',
            properties: { path: { type: 'string' }, content: { type: 'string' } },
            required: ['path', 'content'],
            additionalProperties: false,
          },
        },
      },
    ],
    messages: [
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          {
            type: 'file',
            file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'spec.pdf' },
          },
          {
            type: 'text',
            text: '[audio/wav attachment "memo.wav" omitted: this model cannot read it]',
          },
        ],
      },
      {
        role: 'assistant',
        content: 'Writing them.',
        tool_calls: [call('tc1'), call('tc2'), call('tc3'), call('tc4')],
      },
      { role: 'tool', tool_call_id: 'tc1', content: 'saved' },
      { role: 'tool', tool_call_id: 'tc2', content: DENIED },
      { role: 'tool', tool_call_id: 'tc3', content: INTERRUPTED },
      { role: 'tool', tool_call_id: 'tc4', content: 'EACCES' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments returned by tool call tc1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
      { role: 'user', content: 'Keep it short.' },
      { role: 'assistant', content: 'Done.' },
    ],
  });
});

it('leaves tools out when there are none', async () => {
  server.enqueue(sse('openai', 'text.sse'));
  const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: `${server.url}/v1` });
  await collect(
    model.stream({
      systemPrompt: '',
      tools: [],
      messages: [{ id: 'u', name: 'user', role: 'user', content: 'Hi' }],
    }),
  );
  expect(server.bodies()[0]).toEqual({
    model: 'm',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Hi' }],
  });
});
