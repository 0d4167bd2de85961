import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, Logger } from '@parley/core';
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
import { AnthropicChatModel } from './anthropic-chat-model.js';
import type { AnthropicChatModelOptions } from './anthropic-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

function model(options: Partial<AnthropicChatModelOptions> = {}): AnthropicChatModel {
  return new AnthropicChatModel({
    model: 'claude-sonnet-4-6',
    apiKey: 'test-key',
    baseURL: server.url,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    ...options,
  });
}

function apiError(status: number, type: string, message: string) {
  return { kind: 'error' as const, status, body: { type: 'error', error: { type, message } } };
}

describe('AnthropicChatModel streaming', () => {
  it('streams text, then usage (cache reads included), then finish', async () => {
    server.enqueue(sse('anthropic', 'text.sse'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(chunks).toEqual<ChatChunk[]>([
      { type: 'text_delta', delta: 'Hel' },
      { type: 'text_delta', delta: 'lo' },
      { type: 'text_delta', delta: ', wor' },
      { type: 'text_delta', delta: 'ld.' },
      { type: 'usage', inputTokens: 125, outputTokens: 9 },
      { type: 'finish', finishedReason: 'stop' },
    ]);
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(server.requests[0]?.headers['x-api-key']).toBe('test-key');
  });

  it('streams a tool_use block whose input_json_delta fragments split mid-token', async () => {
    server.enqueue(sse('anthropic', 'tool-call.sse'));
    const chunks = await collect(model().stream(ask('Write a note')));
    expect(textOf(chunks)).toBe('Writing it.');
    expect(toolCallsOf(chunks)).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        name: 'write_note',
        input: { path: 'notes/a.md', content: 'hi\nthere' },
      },
    ]);
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 310, outputTokens: 89 },
      { type: 'finish', finishedReason: 'tool_calls' },
    ]);
  });

  it('keeps three interleaved tool_use blocks apart by index', async () => {
    server.enqueue(sse('anthropic', 'parallel-tool-calls.sse'));
    const chunks = await collect(model().stream(ask('Weather and a file')));
    expect(toolCallsOf(chunks)).toEqual([
      { id: 'toolu_A1', name: 'get_weather', input: { city: 'Paris', unit: 'c' } },
      { id: 'toolu_B2', name: 'get_weather', input: { city: 'Café Town' } },
      { id: 'toolu_C3', name: 'read_file', input: { file_path: '/tmp/x.txt', limit: 10 } },
    ]);
  });

  it('gives a tool call without argument fragments its start input', async () => {
    server.enqueue(sse('anthropic', 'tool-call-no-input.sse'));
    const chunks = await collect(model().stream(ask('List notes')));
    expect(toolCallsOf(chunks)).toEqual([{ id: 'toolu_N0', name: 'list_notes', input: {} }]);
  });

  // Fixtures per "Building with extended thinking" (platform.claude.com/docs,
  // sections "Streaming thinking", "Controlling thinking display",
  // "Thinking redaction") and "Streaming Messages"; see test/fixtures/SOURCES.md.
  it('streams thinking, then its signature as the block ends, then redacted thinking whole', async () => {
    server.enqueue(sse('anthropic', 'thinking.sse'));
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => warnings.push(message),
      error: () => undefined,
    };
    const chunks = await collect(
      model({ thinking: { type: 'enabled', budgetTokens: 2048 }, logger }).stream(
        ask('What is 2+2?'),
      ),
    );
    expect(thinkingOf(chunks)).toBe('The user asks 2+2. That is 4.');
    expect(textOf(chunks)).toBe('2 + 2 = 4');
    const kinds = chunks.map((chunk) => chunk.type);
    expect(kinds.filter((kind) => kind !== 'thinking_delta' && kind !== 'text_delta')).toEqual([
      'thinking_signature',
      'redacted_thinking',
      'usage',
      'finish',
    ]);
    const signatureAt = kinds.indexOf('thinking_signature');
    expect(chunks[signatureAt]).toEqual({
      type: 'thinking_signature',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
    });
    expect(signatureAt).toBeGreaterThan(kinds.lastIndexOf('thinking_delta'));
    expect(chunks[signatureAt + 1]).toEqual({
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
    });
    expect(signatureAt + 1).toBeLessThan(kinds.indexOf('text_delta'));
    expect(warnings).toEqual([]);
    expect(server.bodies()[0]).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      max_tokens: 4096 + 2048,
    });
  });

  it('gives a thinking block with only a signature (display omitted) its own signature chunk', async () => {
    server.enqueue(sse('anthropic', 'thinking-omitted-consecutive.sse'));
    const chunks = await collect(model().stream(ask('Think, then answer')));
    expect(chunks.slice(0, 3)).toEqual([
      { type: 'thinking_signature', signature: expect.stringMatching(/^EuYBCkQYAiJAomitted/) },
      { type: 'thinking_signature', signature: expect.stringMatching(/^EqQBCgIYAhIMsecond/) },
      { type: 'text_delta', delta: 'Done.' },
    ]);
  });

  it('maps max_tokens to length, with the cut tool call as streamed', async () => {
    server.enqueue(sse('anthropic', 'max-tokens-tool-use.sse'));
    const chunks = await collect(model().stream(ask('List notes')));
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 200, outputTokens: 16 },
      { type: 'finish', finishedReason: 'length' },
    ]);
    expect(toolCallsOf(chunks).map((call) => call.id)).toEqual(['toolu_01Cut']);
  });
});

describe('AnthropicChatModel errors, retries and fallback', () => {
  it('retries a 429 and then succeeds, with the SDK retries off', async () => {
    server.enqueue(
      apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit'),
      sse('anthropic', 'text.sse'),
    );
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(textOf(chunks)).toBe('Hello, world.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['x-stainless-retry-count']).toBe('0');
  });

  it('retries an overloaded_error event that arrives before any output', async () => {
    server.enqueue(sse('anthropic', 'overloaded-error-event.sse'), sse('anthropic', 'text.sse'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(textOf(chunks)).toBe('Hello, world.');
    expect(server.requests).toHaveLength(2);
  });

  it('sends a 500 to the fallback once retries are exhausted', async () => {
    server.enqueue(
      apiError(500, 'api_error', 'Internal server error'),
      apiError(500, 'api_error', 'Internal server error'),
    );
    const fallback = new FixedTextModel('backup', 'from the fallback');
    const chunks = await collect(model({ maxRetries: 1, fallback }).stream(ask('Hi')));
    expect(textOf(chunks)).toBe('from the fallback');
    expect(server.requests).toHaveLength(2);
    expect(fallback.requests).toHaveLength(1);
  });

  it('does not retry or fall back on a 400, and keeps the API message', async () => {
    server.enqueue(apiError(400, 'invalid_request_error', 'max_tokens: Field required'));
    const fallback = new FixedTextModel('backup', 'unused');
    const { error } = await collectError(model({ fallback }).stream(ask('Hi')));
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: 400, isRetryable: false, code: 'model_bad_request' });
    expect(error).toHaveProperty(
      'message',
      'anthropic returned HTTP 400: max_tokens: Field required',
    );
    expect(server.requests).toHaveLength(1);
    expect(fallback.requests).toHaveLength(0);
  });

  it('carries the Retry-After hint of a 529', async () => {
    server.enqueue({
      ...apiError(529, 'overloaded_error', 'Overloaded'),
      headers: { 'retry-after': '0' },
    });
    const { error } = await collectError(model({ maxRetries: 0 }).stream(ask('Hi')));
    expect(error).toMatchObject({ status: 529, isRetryable: true, retryAfterMs: 0 });
  });

  it('turns invalid JSON in a data line into a non-retryable MalformedChunkError', async () => {
    server.enqueue(sse('anthropic', 'malformed-json.sse'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(chunks).toEqual([{ type: 'text_delta', delta: 'Hel' }]);
    expect(error).toBeInstanceOf(MalformedChunkError);
    expect(error).toMatchObject({ isRetryable: false, code: 'model_malformed_chunk' });
    expect(server.requests).toHaveLength(1);
  });

  it('turns an event of the wrong shape into a MalformedChunkError naming the field', async () => {
    server.enqueue(sse('anthropic', 'malformed-shape.sse'));
    const { error } = await collectError(model().stream(ask('Hi')));
    expect(error).toBeInstanceOf(MalformedChunkError);
    expect(error).toHaveProperty('message', expect.stringContaining('event.delta.text'));
  });

  it('reports a stream that ends without message_stop', async () => {
    server.enqueue(sse('anthropic', 'truncated.sse'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(textOf(chunks)).toBe('Hello');
    expect(error).toMatchObject({ code: 'model_incomplete_stream' });
  });
});

describe('AnthropicChatModel abort', () => {
  it('throws an AbortError when aborted mid-stream', async () => {
    server.enqueue(sse('anthropic', 'text.sse', 4));
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
});
