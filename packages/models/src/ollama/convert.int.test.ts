import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeProviderServer, ndjson } from '../../test/fake-provider-server.js';
import { collect } from '../../test/chunks.js';
import { DENIED, INTERRUPTED, PNG, richRequest } from '../../test/conversation.js';
import { OllamaChatModel } from './ollama-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

it('sends the conversation as Ollama chat messages, as the server receives it', async () => {
  server.enqueue(ndjson('ollama', 'text.ndjson'));
  const model = new OllamaChatModel({
    model: 'qwen3',
    host: server.url,
    think: 'high',
    maxTokens: 256,
    temperature: 0.2,
    keepAlive: '10m',
  });
  await collect(model.stream(richRequest()));
  const call = (id: string) => ({
    function: { name: 'write_note', arguments: { path: `${id}.md`, content: 'x' } },
  });
  expect(server.bodies()[0]).toEqual({
    model: 'qwen3',
    stream: true,
    think: 'high',
    keep_alive: '10m',
    options: { num_predict: 256, temperature: 0.2 },
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
          'Look at these.',
          '[image/jpeg attachment at https://example.com/cat.jpg omitted: this model cannot read it]',
          '[application/pdf attachment "spec.pdf" omitted: this model cannot read it]',
          '[audio/wav attachment "memo.wav" omitted: this model cannot read it]',
        ].join('\n'),
        images: [PNG],
      },
      {
        role: 'assistant',
        content: 'Writing them.',
        thinking: 'Four notes.',
        tool_calls: [call('tc1'), call('tc2'), call('tc3'), call('tc4')],
      },
      { role: 'tool', tool_name: 'write_note', content: 'saved', images: [PNG] },
      { role: 'tool', tool_name: 'write_note', content: DENIED },
      { role: 'tool', tool_name: 'write_note', content: INTERRUPTED },
      { role: 'tool', tool_name: 'write_note', content: 'EACCES' },
      { role: 'user', content: 'Keep it short.' },
      { role: 'assistant', content: 'Done.' },
    ],
  });
});

it('keeps nested schema fields the SDK types do not name', async () => {
  server.enqueue(ndjson('ollama', 'text.ndjson'));
  const model = new OllamaChatModel({ model: 'qwen3', host: server.url });
  const inputSchema = {
    type: 'object',
    properties: {
      target: {
        type: 'object',
        properties: { x: { type: 'number' } },
        required: ['x'],
      },
      mode: { anyOf: [{ const: 'a' }, { const: 'b' }] },
    },
    $defs: { unused: { type: 'string' } },
  };
  await collect(
    model.stream({
      systemPrompt: '',
      tools: [{ name: 'move', description: 'Move.', inputSchema }],
      messages: [{ id: 'u', name: 'user', role: 'user', content: 'Go' }],
    }),
  );
  expect(server.bodies()[0]).toMatchObject({
    tools: [{ type: 'function', function: { name: 'move', parameters: inputSchema } }],
  });
});
