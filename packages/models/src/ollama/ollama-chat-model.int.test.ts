import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk } from '@parley/core';
import { FakeProviderServer, fixture, ndjson } from '../../test/fake-provider-server.js';
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
import { OllamaChatModel } from './ollama-chat-model.js';
import type { OllamaChatModelOptions } from './ollama-chat-model.js';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await FakeProviderServer.start();
});

afterEach(async () => {
  await server.close();
});

function model(options: Partial<OllamaChatModelOptions> = {}): OllamaChatModel {
  return new OllamaChatModel({
    model: 'qwen3',
    host: server.url,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    ...options,
  });
}

function ollamaError(status: number, error: string) {
  return { kind: 'error' as const, status, body: { error } };
}

describe('OllamaChatModel streaming', () => {
  it('streams text, then usage, then finish', async () => {
    server.enqueue(ndjson('ollama', 'text.ndjson'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(chunks).toEqual<ChatChunk[]>([
      { type: 'text_delta', delta: 'Hel' },
      { type: 'text_delta', delta: 'lo' },
      { type: 'text_delta', delta: ', wor' },
      { type: 'text_delta', delta: 'ld.' },
      { type: 'usage', inputTokens: 26, outputTokens: 4 },
      { type: 'finish', finishedReason: 'stop' },
    ]);
    expect(server.requests[0]?.path).toBe('/api/chat');
  });

  it('streams a whole tool call as start, one delta and end, under a generated id', async () => {
    server.enqueue(ndjson('ollama', 'tool-call.ndjson'));
    const chunks = await collect(model().stream(ask('Write a note')));
    const calls = toolCallsOf(chunks);
    expect(calls.map(({ name, input }) => ({ name, input }))).toEqual([
      { name: 'write_note', input: { path: 'notes/a.md', content: 'hi\nthere' } },
    ]);
    expect(calls[0]?.id).toMatch(/^call_/);
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 120, outputTokens: 22 },
      { type: 'finish', finishedReason: 'tool_calls' },
    ]);
  });

  it('gives three parallel tool calls distinct ids', async () => {
    server.enqueue(ndjson('ollama', 'parallel-tool-calls.ndjson'));
    const chunks = await collect(model().stream(ask('Weather and a file')));
    const calls = toolCallsOf(chunks);
    expect(calls.map(({ name, input }) => ({ name, input }))).toEqual([
      { name: 'get_weather', input: { city: 'Paris', unit: 'c' } },
      { name: 'get_weather', input: { city: 'Café Town' } },
      { name: 'read_file', input: { file_path: '/tmp/x.txt', limit: 10 } },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
  });

  it('streams thinking and sends think', async () => {
    server.enqueue(ndjson('ollama', 'thinking.ndjson'));
    const chunks = await collect(model({ think: true }).stream(ask('What is 2+2?')));
    expect(thinkingOf(chunks)).toBe('The user asks 2+2. That is 4.');
    expect(textOf(chunks)).toBe('2 + 2 = 4');
    expect(server.bodies()[0]).toMatchObject({ think: true, stream: true });
  });
});

describe('OllamaChatModel errors, retries and fallback', () => {
  it('retries a 429 and then succeeds', async () => {
    server.enqueue(ollamaError(429, 'too many requests'), ndjson('ollama', 'text.ndjson'));
    const chunks = await collect(model().stream(ask('Say hello')));
    expect(textOf(chunks)).toBe('Hello, world.');
    expect(server.requests).toHaveLength(2);
  });

  it('sends a 500 to the fallback once retries are exhausted', async () => {
    server.enqueue(
      ollamaError(500, 'model runner crashed'),
      ollamaError(500, 'model runner crashed'),
    );
    const fallback = new FixedTextModel('backup', 'from the fallback');
    const chunks = await collect(model({ maxRetries: 1, fallback }).stream(ask('Hi')));
    expect(textOf(chunks)).toBe('from the fallback');
    expect(server.requests).toHaveLength(2);
    expect(fallback.requests).toHaveLength(1);
  });

  it('does not retry or fall back on a 404 and keeps the server message', async () => {
    server.enqueue(ollamaError(404, 'model "qwen3" not found, try pulling it first'));
    const fallback = new FixedTextModel('backup', 'unused');
    const { error } = await collectError(model({ fallback }).stream(ask('Hi')));
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: 404, isRetryable: false, code: 'model_not_found' });
    expect(error).toHaveProperty('message', expect.stringContaining('model "qwen3" not found'));
    expect(server.requests).toHaveLength(1);
    expect(fallback.requests).toHaveLength(0);
  });

  it('maps a non-JSON error body without printing anything', async () => {
    server.enqueue({ kind: 'error', status: 502, body: 'upstream down' });
    const { error } = await collectError(model({ maxRetries: 0 }).stream(ask('Hi')));
    expect(error).toMatchObject({ status: 502, isRetryable: true, code: 'model_server_error' });
  });

  it('reports a connection failure as retryable', async () => {
    const closed = await FakeProviderServer.start();
    const url = closed.url;
    await closed.close();
    const { error } = await collectError(model({ host: url, maxRetries: 0 }).stream(ask('Hi')));
    expect(error).toMatchObject({ isRetryable: true, code: 'model_connection' });
  });

  it('turns a line that is not JSON into a MalformedChunkError instead of skipping it', async () => {
    server.enqueue(ndjson('ollama', 'malformed-json.ndjson'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(chunks).toEqual([{ type: 'text_delta', delta: 'Hel' }]);
    expect(error).toBeInstanceOf(MalformedChunkError);
    expect(error).toMatchObject({ isRetryable: false, code: 'model_malformed_chunk' });
    expect(server.requests).toHaveLength(1);
  });

  it('turns an object of the wrong shape into a MalformedChunkError naming the field', async () => {
    server.enqueue(ndjson('ollama', 'malformed-shape.ndjson'));
    const { error } = await collectError(model().stream(ask('Hi')));
    expect(error).toBeInstanceOf(MalformedChunkError);
    expect(error).toHaveProperty('message', expect.stringContaining('chunk.message.content'));
  });

  it('turns an error line into a ModelApiError', async () => {
    server.enqueue(ndjson('ollama', 'error-line.ndjson'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(textOf(chunks)).toBe('Hel');
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toHaveProperty('message', expect.stringContaining('unexpected EOF'));
  });

  it('says the stream was cut off, not that ollama was unreachable, when the body breaks', async () => {
    server.enqueue({
      kind: 'stream',
      body: fixture('ollama', 'text.ndjson'),
      contentType: 'application/x-ndjson',
      cutAfterFrames: 2,
    });
    const { chunks, error } = await collectError(model({ maxRetries: 0 }).stream(ask('Hi')));
    expect(textOf(chunks)).toBe('Hello');
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ isRetryable: true, code: 'model_incomplete_stream' });
    expect(error).toHaveProperty(
      'message',
      expect.stringMatching(/^ollama stream ended early: the connection broke mid-stream \(/),
    );
    expect(error).not.toHaveProperty('message', expect.stringContaining('Could not reach'));
  });

  it('reports a stream that ends without done: true', async () => {
    server.enqueue(ndjson('ollama', 'truncated.ndjson'));
    const { chunks, error } = await collectError(model().stream(ask('Hi')));
    expect(textOf(chunks)).toBe('Hello');
    expect(error).toMatchObject({ code: 'model_incomplete_stream' });
  });
});

describe('OllamaChatModel abort', () => {
  it('throws an AbortError when aborted mid-stream', async () => {
    server.enqueue(ndjson('ollama', 'text.ndjson', 2));
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

  it('throws an AbortError when aborted while waiting for the response', async () => {
    server.enqueue(ndjson('ollama', 'text.ndjson', 0));
    const controller = new AbortController();
    const stream = model().stream(ask('Hi'), controller.signal)[Symbol.asyncIterator]();
    const next = stream.next();
    await new Promise<void>((resolve) => {
      const wait = (): void => {
        if (server.requests.length > 0) resolve();
        else setImmediate(wait);
      };
      wait();
    });
    controller.abort();
    await expect(next).rejects.toMatchObject({ name: 'AbortError' });
  });
});
