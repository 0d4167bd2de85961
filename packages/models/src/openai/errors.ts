import { ModelError } from '@parley/core';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from 'openai';
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

/** The `message` of the error body the SDK parsed, else the SDK's own message. */
function bodyMessage(body: unknown, fallback: string): string {
  return isRecord(body) && typeof body['message'] === 'string' ? body['message'] : fallback;
}

/**
 * Maps what the `openai` SDK throws to Parley errors: HTTP errors to a
 * `ModelApiError` with `status` and the retry policy, connection failures
 * and timeouts to retryable ones, invalid JSON in an SSE `data:` line to a
 * `MalformedChunkError`, and the SDK's abort error to an `AbortError`.
 * Errors that are not the SDK's (bugs) pass through unchanged.
 */
export function toOpenAIModelError(error: unknown, provider: string): unknown {
  if (error instanceof ModelError) return error;
  if (error instanceof APIUserAbortError || isAbortError(error)) return abortError();
  if (error instanceof SyntaxError) {
    return new MalformedChunkError(provider, `a data line is not valid JSON (${error.message})`, {
      cause: error,
    });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelApiError(provider, `${provider} request timed out`, {
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
    return new ModelApiError(
      provider,
      `${provider} reported an error in the stream: ${bodyMessage(error.error, error.message)}`,
      {
        isRetryable: error.type === 'server_error',
        code: 'model_stream_error',
        cause: error,
      },
    );
  }
  if (error instanceof OpenAIError) {
    return new ModelApiError(provider, `${provider} client error: ${error.message}`, {
      isRetryable: false,
      code: 'model_client_error',
      cause: error,
    });
  }
  return error;
}
