import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '@parley/core';
import type { ChatChunk } from '@parley/core';
import { FakeProviderServer, sse } from '../../test/fake-provider-server.js';
import {
  FixedTextModel,
  ask,
  collect,
  collectError,
  textOf,
  thinkingOf,
  toolCallsOf,
} from '../../test/chunks.js';
import { MalformedChunkError, ModelApiError } from '../shared/errors.js';
import { OpenAIChatModel } from './openai-chat-model.js';
import type { OpenAIChatModelOptions } from './openai-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

function model(options: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    model: 'gpt-4.1-mini',
    apiKey: 'test-key',
    baseURL: `${server.url}/v1`,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    ...options,
  });
}

const rateLimited = {
  kind: 'error' as const,
  status: 429,
  body: {
    error: {
      message: 'Rate limit reached for gpt-4.1-mini',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
};

const serverError = {
  kind: 'error' as const,
  status: 500,
  body: {
    error: { message: 'The server had an error', type: 'server_error', param: null, code: null },
  },
};

describe('OpenAIChatModel streaming', () => {
  it('streams text, then usage, then finish', async () => {
    server.enqueue(sse('openai', 'text.sse'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(chunks).toEqual<ChatChunk[]>([
      { type: 'text_delta', delta: 'Hel' },
      { type: 'text_delta', delta: 'lo' },
      { type: 'text_delta', delta: ', wor' },
      { type: 'text_delta', delta: 'ld.' },
      { type: 'usage', inputTokens: 21, outputTokens: 4 },
      { type: 'finish', finishedReason: 'stop' },
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });

  it('streams one tool call whose arguments are split mid-token', async () => {
    server.enqueue(sse('openai', 'tool-call.sse'));
    const chunks = await collect(model().stream(ask('Write a note')));
    expect(toolCallsOf(chunks)).toEqual([
      {
        id: 'call_Wn4bQ0',
        name: 'write_note',
        input: { path: 'notes/a.md', content: 'hi\nthere' },
      },
    ]);
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 88, outputTokens: 31 },
      { type: 'finish', finishedReason: 'tool_calls' },
    ]);
  });

  it('maps three interleaved parallel tool calls by index to their ids', async () => {
    server.enqueue(sse('openai', 'parallel-tool-calls.sse'));
    const chunks = await collect(model().stream(ask('Weather and a file')));
    expect(toolCallsOf(chunks)).toEqual([
      { id: 'call_A1', name: 'get_weather', input: { city: 'Paris', unit: 'c' } },
      { id: 'call_B2', name: 'get_weather', input: { city: 'Café Town' } },
      { id: 'call_C3', name: 'read_file', input: { file_path: '/tmp/x.txt', limit: 10 } },
    ]);
    expect(chunks.filter((chunk) => chunk.type === 'tool_call_start')).toHaveLength(3);
    const kinds = chunks.map((chunk) => chunk.type);
    expect(kinds.lastIndexOf('tool_call_end')).toBeLessThan(kinds.indexOf('usage'));
  });

  it('streams reasoning_content deltas (DeepSeek) as thinking', async () => {
    server.enqueue(sse('openai', 'reasoning-content.sse'));
    const chunks = await collect(model({ model: 'deepseek-reasoner' }).stream(ask('What is 2+2?')));
    expect(thinkingOf(chunks)).toBe('The user asks 2+2. That is 4.');
    expect(textOf(chunks)).toBe('2 + 2 = 4');
    const kinds = chunks.map((chunk) => chunk.type);
    expect(kinds.lastIndexOf('thinking_delta')).toBeLessThan(kinds.indexOf('text_delta'));
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 13, outputTokens: 40 },
      { type: 'finish', finishedReason: 'stop' },
    ]);
  });
});

describe('OpenAIChatModel finish reasons', () => {
  // "The chat completion chunk object", OpenAI API reference: finish_reason
  // `length` when the token limit was reached (see test/fixtures/SOURCES.md).
  it('passes length through, with the tool call cut before any argument', async () => {
    server.enqueue(sse('openai', 'length-tool-call.sse'));
    const chunks = await collect(model().stream(ask('List notes')));
    expect(chunks).toEqual<ChatChunk[]>([
      { type: 'tool_call_start', id: 'call_Len0', name: 'list_notes' },
      { type: 'tool_call_end', id: 'call_Len0' },
      { type: 'usage', inputTokens: 90, outputTokens: 16 },
      { type: 'finish', finishedReason: 'length' },
    ]);
  });
});

describe('OpenAIChatModel errors, retries and fallback', () => {
  it('retries a 429 and then succeeds, with the SDK retries off', async () => {
    server.enqueue(rateLimited, sse('openai', 'text.sse'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(textOf(chunks)).toBe('Hello, world.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['x-stainless-retry-count']).toBe('0');
  });

  it('retries a server_error payload that arrives in the stream before any output', async () => {
    server.enqueue(sse('openai', 'error-payload.sse'), sse('openai', 'text.sse'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(textOf(chunks)).toBe('Hello, world.');
    expect(server.requests).toHaveLength(2);
  });

  it('reports a server_error payload as a retryable stream error', async () => {
    server.enqueue(sse('openai', 'error-payload.sse'));
    const { error } = await collectError(model({ maxRetries: 0 }).stream(ask('Hi')));
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({
      isRetryable: true,
      code: 'model_stream_error',
      status: undefined,
    });
    expect(error).toHaveProperty('message', expect.stringContaining('The server had an error'));
  });

  it('sends a 500 to the fallback once retries are exhausted', async () => {
    server.enqueue(serverError, serverError);
    const fallback = new FixedTextModel('backup', 'from the fallback');
    const chunks = await collect(model({ maxRetries: 1, fallback }).stream(ask('Hi')));
    expect(textOf(chunks)).toBe('from the fallback');
    expect(server.requests).toHaveLength(2);
    expect(fallback.requests).toHaveLength(1);
  });

  it('throws a retryable ModelApiError with the status when there is no fallback', async () => {
    server.enqueue(serverError);
    const { error } = await collectError(model({ maxRetries: 0 }).stream(ask('Hi')));
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: 500, isRetryable: true, code: 'model_server_error' });
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry or fall back on a 401', async () => {
    server.enqueue({
      kind: 'error',
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    });
    const fallback = new FixedTextModel('backup', 'unused');
    const { error } = await collectError(model({ fallback }).stream(ask('Hi')));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 401, isRetryable: false, code: 'model_unauthorized' });
    expect(error).toHaveProperty('message', expect.stringContaining('Incorrect API key provided'));
    expect(server.requests).toHaveLength(1);
    expect(fallback.requests).toHaveLength(0);
  });

  it('reports a connection failure as retryable', async () => {
    const closed = await FakeProviderServer.start();
    const url = closed.url;
    await closed.close();
    const { error } = await collectError(
      model({ baseURL: `${url}/v1`, maxRetries: 0 }).stream(ask('Hi')),
    );
    expect(error).toMatchObject({ isRetryable: true, code: 'model_connection' });
  });

  it('turns invalid JSON in a data line into a non-retryable MalformedChunkError', async () => {
    server.enqueue(sse('openai', 'malformed-json.sse'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(chunks).toEqual([{ type: 'text_delta', delta: 'Hel' }]);
    expect(error).toBeInstanceOf(MalformedChunkError);
    expect(error).toMatchObject({ isRetryable: false, code: 'model_malformed_chunk' });
    expect(server.requests).toHaveLength(1);
  });

  it('turns a chunk of the wrong shape into a MalformedChunkError naming the field', async () => {
    server.enqueue(sse('openai', 'malformed-shape.sse'));
    const { error } = await collectError(model().stream(ask('Hi')));
    expect(error).toBeInstanceOf(MalformedChunkError);
    expect(error).toHaveProperty(
      'message',
      expect.stringContaining('chunk.choices[0].delta.content'),
    );
    expect(error).toHaveProperty('chunk', expect.stringContaining('"content":42'));
  });

  it('reports a stream that ends without a finish_reason', async () => {
    server.enqueue(sse('openai', 'truncated.sse'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(textOf(chunks)).toBe('Hello');
    expect(error).toMatchObject({ code: 'model_incomplete_stream' });
  });
});

describe('OpenAIChatModel abort', () => {
  it('throws an AbortError when aborted mid-stream', async () => {
    server.enqueue(sse('openai', 'text.sse', 2));
    const controller = new AbortController();
    const seen: ChatChunk[] = [];
    const { error } = await collectError(
      (async function* () {
        for await (const chunk of model().stream(ask('Hi'), controller.signal)) {
          seen.push(chunk);
          controller.abort();
          yield chunk;
        }
      })(),
    );
    expect(seen).toEqual([{ type: 'text_delta', delta: 'Hel' }]);
    expect(error).toMatchObject({ name: 'AbortError' });
  });

  it('throws an AbortError without a request when the signal already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await collectError(model().stream(ask('Hi'), controller.signal));
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(0);
  });
});
