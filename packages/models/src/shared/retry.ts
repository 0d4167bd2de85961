import { ModelError } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { ModelApiError, abortError, isAbortError, isAborted } from './errors.js';

/** Timing of the retry loop's exponential backoff. */
export type RetryOptions = {
  /** Delay before the first retry in milliseconds (default 500); each retry doubles it. */
  initialDelayMs?: number;
  /** Cap of one delay in milliseconds, server `Retry-After` hints included (default 8000). */
  maxDelayMs?: number;
};

/** Retry and fallback settings of one adapter, resolved from its options. */
export type ResiliencePolicy = {
  /** Provider name for log lines. */
  provider: string;
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  timing: Required<RetryOptions>;
  /** The model used when the provider keeps failing with a retryable or 5xx error. */
  fallback: ChatModel | undefined;
  logger: Logger;
};

/** Retries after the first attempt when an adapter is given no `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2;

/** Builds a policy from the optional adapter options, filling in the defaults. */
export function resolvePolicy(options: {
  provider: string;
  maxRetries?: number | undefined;
  retry?: RetryOptions | undefined;
  fallback?: ChatModel | undefined;
  logger: Logger;
}): ResiliencePolicy {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new ModelError(`maxRetries must be a whole number >= 0, got ${maxRetries}`, {
      code: 'model_configuration',
    });
  }
  return {
    provider: options.provider,
    maxRetries,
    timing: {
      initialDelayMs: options.retry?.initialDelayMs ?? 500,
      maxDelayMs: options.retry?.maxDelayMs ?? 8000,
    },
    fallback: options.fallback,
    logger: options.logger,
  };
}

/**
 * The wait before retry number `retry` (0-based): the server's hint when it
 * gave one (capped), else exponential backoff with "equal jitter" — half the
 * delay fixed, half random — so that many clients do not retry in lockstep.
 */
export function backoffDelayMs(
  retry: number,
  timing: Required<RetryOptions>,
  hintMs?: number,
  random: () => number = Math.random,
): number {
  if (hintMs !== undefined) return Math.min(hintMs, timing.maxDelayMs);
  const ceiling = Math.min(timing.maxDelayMs, timing.initialDelayMs * 2 ** retry);
  return ceiling / 2 + random() * (ceiling / 2);
}

/** Waits `ms`, or rejects with an `AbortError` as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (isAborted(signal)) {
      reject(abortError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether a failure that survived the retries should go to the fallback model. */
export function shouldFallBack(error: ModelError): boolean {
  return error.isRetryable || (error.status !== undefined && error.status >= 500);
}

/**
 * The one retry loop of the package, shared by every adapter (the SDKs' own
 * retries are switched off). It opens the provider stream with `attempt`
 * and waits for its first chunk; a retryable `ModelError` before that chunk
 * is retried with backoff, up to `maxRetries` times. Once a chunk has been
 * yielded nothing is retried, since the caller has already seen output.
 * When retries are exhausted and the error is retryable or a 5xx, the
 * request goes to `fallback` if there is one. Non-retryable errors (400,
 * 401, 403, 404, malformed chunks) are thrown at once.
 */
export async function* streamWithRetry(
  request: ChatRequest,
  signal: AbortSignal | undefined,
  policy: ResiliencePolicy,
  attempt: (signal: AbortSignal | undefined) => AsyncIterable<ChatChunk>,
): AsyncGenerator<ChatChunk, void, undefined> {
  for (let retry = 0; ; retry += 1) {
    if (isAborted(signal)) throw abortError();
    const iterator = attempt(signal)[Symbol.asyncIterator]();
    let first: IteratorResult<ChatChunk>;
    try {
      first = await iterator.next();
    } catch (error) {
      if (isAborted(signal)) throw abortError();
      if (isAbortError(error) || !(error instanceof ModelError)) throw error;
      if (error.isRetryable && retry < policy.maxRetries) {
        const hint = error instanceof ModelApiError ? error.retryAfterMs : undefined;
        const delayMs = backoffDelayMs(retry, policy.timing, hint);
        policy.logger.warn(`${policy.provider} call failed; retrying`, {
          attempt: retry + 1,
          delayMs,
          code: error.code,
          status: error.status,
          message: error.message,
        });
        await sleep(delayMs, signal);
        continue;
      }
      if (policy.fallback !== undefined && shouldFallBack(error)) {
        policy.logger.warn(`${policy.provider} call failed; using the fallback model`, {
          fallback: policy.fallback.name,
          code: error.code,
          status: error.status,
          message: error.message,
        });
        yield* policy.fallback.stream(request, signal);
        return;
      }
      throw error;
    }
    if (first.done === true) return;
    const rest: AsyncIterable<ChatChunk> = { [Symbol.asyncIterator]: () => iterator };
    let forwarding = false;
    try {
      yield first.value;
      forwarding = true;
      yield* rest;
    } finally {
      if (!forwarding) await iterator.return?.();
    }
    return;
  }
}
