import {
  MalformedChunkError,
  ModelApiError,
  abortError,
  connectionError,
  httpError,
  incompleteStreamError,
  isAbortError,
  retryAfterMs,
} from '../shared/errors.js';
import { isRecord } from '../shared/read.js';

/**
 * Checks an NDJSON body line by line before the SDK reads it. The `ollama`
 * SDK skips a line that is not JSON with a `console.warn`, and turns an
 * `{"error": …}` line into a plain `Error`; here a bad line fails the
 * stream with a `MalformedChunkError` and an error line with a
 * `ModelApiError`. Good lines pass through, one per line.
 */
export function ndjsonGuard(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  const check = (line: string, controller: TransformStreamDefaultController<Uint8Array>): void => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new MalformedChunkError('ollama', `a line is not valid JSON (${detail})`, {
        chunk: line,
        cause: error,
      });
    }
    if (isRecord(value) && typeof value['error'] === 'string') {
      throw new ModelApiError(
        'ollama',
        `ollama reported an error in the stream: ${value['error']}`,
        {
          isRetryable: false,
          code: 'model_stream_error',
        },
      );
    }
    controller.enqueue(encoder.encode(`${line}\n`));
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) check(line, controller);
    },
    flush(controller) {
      buffer += decoder.decode();
      check(buffer, controller);
    },
  });
}

/**
 * The body, with a read that fails midway (the server answered, then the
 * connection broke: `fetch` throws a bare `TypeError: terminated`) turned
 * into an incomplete-stream error that says so. An abort of `signal` errors
 * the stream with an `AbortError` at once.
 */
function reportBreaks(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let settled = false;
  let onAbort = (): void => undefined;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    signal.removeEventListener('abort', onAbort);
    return true;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // An abort errors the stream at once, as `fetch`'s own body does.
        onAbort = () => {
          if (!settle()) return;
          controller.error(abortError());
          reader.cancel().catch(() => undefined);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      },
      async pull(controller) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          if (!settle()) return;
          const detail = error instanceof Error ? error.message : String(error);
          controller.error(
            isAbortError(error)
              ? abortError()
              : incompleteStreamError(
                  'ollama',
                  `the connection broke mid-stream (${detail})`,
                  error,
                ),
          );
          return;
        }
        if (settled) return;
        if (next.done) {
          settle();
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      },
      cancel: (reason) => {
        settle();
        return reader.cancel(reason);
      },
    },
    // Read only when asked: nothing is pulled ahead of the consumer (an abort stops at once).
    { highWaterMark: 0 },
  );
}

async function statusError(response: Response): Promise<ModelApiError> {
  const text = await response.text().catch(() => '');
  let message = text.slice(0, 500) || response.statusText;
  try {
    const body: unknown = JSON.parse(text);
    if (isRecord(body) && typeof body['error'] === 'string') message = body['error'];
  } catch {
    // Not JSON: the text itself is the message.
  }
  return httpError('ollama', response.status, message, {
    retryAfterMs: retryAfterMs(response.headers),
  });
}

/**
 * The `fetch` given to the `ollama` SDK for one call. It adds the call's
 * `AbortSignal` (the SDK's chat API takes none), maps HTTP error statuses
 * and connection failures to `ModelApiError`s (the SDK prints non-JSON error
 * bodies to the console and drops the status from its error type), reports
 * a body that breaks midway as an incomplete stream (`reportBreaks`), and
 * guards the NDJSON body with `ndjsonGuard`.
 */
export function guardedFetch(base: typeof fetch, signal: AbortSignal): typeof fetch {
  return async (input, init) => {
    const signals = init?.signal ? [init.signal, signal] : [signal];
    let response: Response;
    const combined = AbortSignal.any(signals);
    try {
      response = await base(input, { ...init, signal: combined });
    } catch (error) {
      if (signal.aborted || isAbortError(error)) throw abortError();
      throw connectionError('ollama', error);
    }
    if (!response.ok) throw await statusError(response);
    if (response.body === null) return response;
    return new Response(reportBreaks(response.body, combined).pipeThrough(ndjsonGuard()), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
