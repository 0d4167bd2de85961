import { describe, expect, it } from 'vitest';
import { ModelError } from '@parley/core';
import type { ChatChunk, ChatRequest } from '@parley/core';
import { FixedTextModel, ask, collect, collectError } from '../../test/chunks.js';
import { MalformedChunkError, ModelApiError, httpError } from './errors.js';
import { silentLogger } from './logger.js';
import { backoffDelayMs, resolvePolicy, shouldFallBack, streamWithRetry } from './retry.js';

type Step = ChatChunk | Error;

/** An attempt function that plays one script per attempt; an Error in a script is thrown there. */
function scripted(...attempts: Step[][]): {
  attempt: () => AsyncIterable<ChatChunk>;
  calls: () => number;
  closed: () => number;
} {
  let calls = 0;
  let closed = 0;
  return {
    calls: () => calls,
    closed: () => closed,
    attempt: () => {
      const steps = attempts[calls] ?? [];
      calls += 1;
      return (async function* () {
        try {
          for (const step of steps) {
            if (step instanceof Error) throw step;
            yield step;
          }
        } finally {
          closed += 1;
        }
      })();
    },
  };
}

const text = (delta: string): ChatChunk => ({ type: 'text_delta', delta });
const finish: ChatChunk = { type: 'finish', finishedReason: 'stop' };
const request: ChatRequest = ask('hi');

function policy(options: Partial<Parameters<typeof resolvePolicy>[0]> = {}) {
  return resolvePolicy({
    provider: 'test',
    maxRetries: 2,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    logger: silentLogger,
    ...options,
  });
}

describe('streamWithRetry', () => {
  it('retries retryable errors before the first chunk, then streams', async () => {
    const script = scripted(
      [httpError('test', 429, 'slow down')],
      [httpError('test', 503, 'x')],
      [text('ok'), finish],
    );
    const chunks = await collect(streamWithRetry(request, undefined, policy(), script.attempt));
    expect(chunks).toEqual([text('ok'), finish]);
    expect(script.calls()).toBe(3);
  });

  it('never retries once a chunk has been yielded', async () => {
    const script = scripted(
      [text('partial'), httpError('test', 503, 'gone')],
      [text('again'), finish],
    );
    const { chunks, error } = await collectError(
      streamWithRetry(request, undefined, policy(), script.attempt),
    );
    expect(chunks).toEqual([text('partial')]);
    expect(error).toMatchObject({ status: 503 });
    expect(script.calls()).toBe(1);
  });

  it('throws non-retryable errors at once, without the fallback', async () => {
    const fallback = new FixedTextModel('backup', 'unused');
    for (const failure of [
      httpError('test', 400, 'bad'),
      new MalformedChunkError('test', 'junk'),
    ]) {
      const script = scripted([failure]);
      const { error } = await collectError(
        streamWithRetry(request, undefined, policy({ fallback }), script.attempt),
      );
      expect(error).toBe(failure);
      expect(script.calls()).toBe(1);
    }
    expect(fallback.requests).toHaveLength(0);
  });

  it('hands the request to the fallback when retries are exhausted', async () => {
    const fallback = new FixedTextModel('backup', 'from backup');
    const failure = httpError('test', 500, 'down');
    const script = scripted([failure], [failure]);
    const chunks = await collect(
      streamWithRetry(request, undefined, policy({ maxRetries: 1, fallback }), script.attempt),
    );
    expect(chunks).toEqual([text('from backup'), finish]);
    expect(script.calls()).toBe(2);
    expect(fallback.requests).toEqual([request]);
  });

  it('rethrows errors that are not ModelErrors (bugs) unchanged', async () => {
    const bug = new TypeError('x is undefined');
    const script = scripted([bug]);
    const { error } = await collectError(
      streamWithRetry(request, undefined, policy(), script.attempt),
    );
    expect(error).toBe(bug);
    expect(script.calls()).toBe(1);
  });

  it('stops with an AbortError when aborted during the backoff', async () => {
    const controller = new AbortController();
    const script = scripted([httpError('test', 429, 'slow down')]);
    const warnings: string[] = [];
    const slow = policy({
      retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      logger: {
        ...silentLogger,
        // The retry notice comes right before the backoff sleep starts.
        warn: (message) => {
          warnings.push(message);
          setImmediate(() => controller.abort());
        },
      },
    });
    const { error } = await collectError(
      streamWithRetry(request, controller.signal, slow, script.attempt),
    );
    expect(warnings).toEqual(['test call failed; retrying']);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(script.calls()).toBe(1);
  });

  it('closes the provider stream when the consumer stops early', async () => {
    const script = scripted([text('a'), text('b'), finish]);
    for await (const chunk of streamWithRetry(request, undefined, policy(), script.attempt)) {
      expect(chunk).toEqual(text('a'));
      break;
    }
    expect(script.closed()).toBe(1);
  });
});

describe('backoff and fallback rules', () => {
  const timing = { initialDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the delay per retry, with jitter in its upper half, up to the cap', () => {
    expect(backoffDelayMs(0, timing, undefined, () => 0)).toBe(50);
    expect(backoffDelayMs(0, timing, undefined, () => 1)).toBe(100);
    expect(backoffDelayMs(2, timing, undefined, () => 1)).toBe(400);
    expect(backoffDelayMs(10, timing, undefined, () => 1)).toBe(1000);
  });

  it('follows a server hint, capped', () => {
    expect(backoffDelayMs(0, timing, 250)).toBe(250);
    expect(backoffDelayMs(0, timing, 5000)).toBe(1000);
  });

  it('falls back on retryable errors and on any 5xx', () => {
    expect(shouldFallBack(httpError('t', 429, ''))).toBe(true);
    expect(shouldFallBack(new ModelError('x', { status: 501, isRetryable: false }))).toBe(true);
    expect(shouldFallBack(httpError('t', 401, ''))).toBe(false);
    expect(shouldFallBack(new ModelApiError('t', 'x', { isRetryable: false, code: 'c' }))).toBe(
      false,
    );
  });

  it('refuses a negative maxRetries', () => {
    expect(() => policy({ maxRetries: -1 })).toThrow(/maxRetries/);
  });
});
