import { ModelError } from '@parley/core';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AnthropicError,
} from '@anthropic-ai/sdk';
import {
  MalformedChunkError,
  ModelApiError,
  abortError,
  connectionError,
  httpError,
  isAbortError,
  retryAfterMs,
} from '../shared/errors.js';
import { isRecord } from '../shared/read.js';

/** Error types the API documents as transient (the stream's `error` event carries no status). */
const RETRYABLE_TYPES: readonly string[] = [
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
];

/** `error.message` of the body `{ type: 'error', error: { type, message } }`, else the SDK's message. */
function bodyMessage(body: unknown, fallback: string): string {
  if (!isRecord(body)) return fallback;
  const inner = body['error'];
  return isRecord(inner) && typeof inner['message'] === 'string' ? inner['message'] : fallback;
}

/**
 * Maps what `@anthropic-ai/sdk` throws to Parley errors: HTTP errors to a
 * `ModelApiError` with `status` and the retry policy (529 overloaded counts
 * as a retryable 5xx), an `error` event inside the stream by its error type,
 * connection failures and timeouts to retryable errors, invalid JSON in an
 * SSE `data:` line to a `MalformedChunkError`, and the SDK's abort error to
 * an `AbortError`. Errors that are not the SDK's pass through unchanged.
 */
export function toAnthropicModelError(error: unknown): unknown {
  const provider = 'anthropic';
  if (error instanceof ModelError) return error;
  if (error instanceof APIUserAbortError || isAbortError(error)) return abortError();
  if (error instanceof SyntaxError) {
    return new MalformedChunkError(provider, `a data line is not valid JSON (${error.message})`, {
      cause: error,
    });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelApiError(provider, 'anthropic request timed out', {
      isRetryable: true,
      code: 'model_timeout',
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) return connectionError(provider, error.cause ?? error);
  if (error instanceof APIError) {
    if (typeof error.status === 'number') {
      return httpError(provider, error.status, bodyMessage(error.error, error.message), {
        cause: error,
        retryAfterMs: error.headers instanceof Headers ? retryAfterMs(error.headers) : undefined,
      });
    }
    const type = typeof error.type === 'string' ? error.type : 'unknown';
    return new ModelApiError(
      provider,
      `anthropic reported ${type} in the stream: ${bodyMessage(error.error, error.message)}`,
      { isRetryable: RETRYABLE_TYPES.includes(type), code: 'model_stream_error', cause: error },
    );
  }
  if (error instanceof AnthropicError) {
    return new ModelApiError(provider, `anthropic client error: ${error.message}`, {
      isRetryable: false,
      code: 'model_client_error',
      cause: error,
    });
  }
  return error;
}
