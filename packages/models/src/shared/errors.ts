import { ModelError } from '@parley/core';

/**
 * A provider call failed: an HTTP error status, a connection failure, an
 * error event inside the stream, or a stream that ended early. `status` is
 * the HTTP status when there was one; `isRetryable` says whether the same
 * request may succeed later (429, 408, 409, 5xx, connection failures).
 * `retryAfterMs` carries the server's `Retry-After` hint when it sent one.
 */
export class ModelApiError extends ModelError {
  /** Which provider failed: `openai`, `anthropic` or `ollama`. */
  readonly provider: string;
  /** The server's `Retry-After` / `retry-after-ms` hint in milliseconds, if any. */
  readonly retryAfterMs: number | undefined;

  constructor(
    provider: string,
    message: string,
    options: {
      status?: number | undefined;
      isRetryable: boolean;
      code: string;
      cause?: unknown;
      retryAfterMs?: number | undefined;
    },
  ) {
    super(message, {
      status: options.status,
      isRetryable: options.isRetryable,
      code: options.code,
      cause: options.cause,
    });
    this.provider = provider;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The provider sent a stream chunk that is not valid JSON, or whose shape is
 * not the documented one. Never retryable: the same server would likely send
 * the same thing again, and a broken stream must not be papered over.
 */
export class MalformedChunkError extends ModelError {
  /** Which provider sent the chunk. */
  readonly provider: string;
  /** The offending chunk as text (cut to 500 characters), when it is known. */
  readonly chunk: string | undefined;

  constructor(
    provider: string,
    problem: string,
    options: { chunk?: string; cause?: unknown } = {},
  ) {
    super(`${provider} sent a malformed stream chunk: ${problem}`, {
      isRetryable: false,
      code: 'model_malformed_chunk',
      cause: options.cause,
    });
    this.provider = provider;
    this.chunk = options.chunk === undefined ? undefined : options.chunk.slice(0, 500);
  }
}

/** Statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The stable `code` of a `ModelApiError` for an HTTP status. */
export function codeForStatus(status: number): string {
  if (status === 400 || status === 422) return 'model_bad_request';
  if (status === 401 || status === 403) return 'model_unauthorized';
  if (status === 404) return 'model_not_found';
  if (status === 408) return 'model_timeout';
  if (status === 409) return 'model_conflict';
  if (status === 429) return 'model_rate_limited';
  if (status >= 500) return 'model_server_error';
  return 'model_http_error';
}

/** A `ModelApiError` for an HTTP error status, with the retry policy applied. */
export function httpError(
  provider: string,
  status: number,
  message: string,
  options: { cause?: unknown; retryAfterMs?: number | undefined } = {},
): ModelApiError {
  return new ModelApiError(provider, `${provider} returned HTTP ${status}: ${message}`, {
    status,
    isRetryable: isRetryableStatus(status),
    code: codeForStatus(status),
    cause: options.cause,
    retryAfterMs: options.retryAfterMs,
  });
}

/** A retryable `ModelApiError` for a request that got no HTTP response at all. */
export function connectionError(provider: string, cause: unknown): ModelApiError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ModelApiError(provider, `Could not reach ${provider}: ${detail}`, {
    isRetryable: true,
    code: 'model_connection',
    cause,
  });
}

/** A retryable `ModelApiError` for a stream that ended before the provider said it was done. */
export function incompleteStreamError(
  provider: string,
  what: string,
  cause?: unknown,
): ModelApiError {
  return new ModelApiError(provider, `${provider} stream ended early: ${what}`, {
    isRetryable: true,
    code: 'model_incomplete_stream',
    cause,
  });
}

/**
 * The server's retry hint in milliseconds: `retry-after-ms`, else
 * `retry-after` as seconds or as an HTTP date. `undefined` when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The error every adapter throws when its `AbortSignal` fires, wherever the
 * call was (waiting for headers, mid-stream, in a retry backoff): a
 * `DOMException` named `AbortError`, as `fetch` throws. The SDKs' own abort
 * errors never escape.
 */
export function abortError(): DOMException {
  return new DOMException('The model call was aborted.', 'AbortError');
}

/** True for any error named `AbortError` (ours, `fetch`'s, a `DOMException`). */
export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError'
  );
}

/**
 * Whether `signal` has fired. A function rather than `signal?.aborted`
 * inline, because TypeScript keeps a narrowed `aborted` across `await`s,
 * where it can change.
 */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
