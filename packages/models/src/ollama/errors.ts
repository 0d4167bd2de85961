import { ModelError } from '@parley/core';
import {
  ModelApiError,
  abortError,
  connectionError,
  incompleteStreamError,
  isAbortError,
} from '../shared/errors.js';

/** The message the SDK throws when the stream ends without a `done: true` object. */
const NOT_DONE = 'Did not receive done or success response in stream.';

/**
 * Maps what reaches the adapter from the `ollama` SDK to Parley errors.
 * HTTP statuses, connection failures, a body that breaks midway and bad
 * lines are already typed by `guardedFetch`; what is left is an abort, a
 * stray `TypeError` from `fetch` (a connection error: retryable), a stream
 * with no final object (retryable) and the SDK's other plain errors (not
 * retryable).
 */
export function toOllamaModelError(error: unknown): unknown {
  if (error instanceof ModelError) return error;
  if (isAbortError(error)) return abortError();
  if (error instanceof TypeError) return connectionError('ollama', error);
  if (error instanceof Error) {
    if (error.message === NOT_DONE)
      return incompleteStreamError('ollama', 'no object with done: true');
    return new ModelApiError('ollama', `ollama client error: ${error.message}`, {
      isRetryable: false,
      code: 'model_client_error',
      cause: error,
    });
  }
  return error;
}
