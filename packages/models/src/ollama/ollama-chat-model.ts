import { Ollama } from 'ollama';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { silentLogger } from '../shared/logger.js';
import { resolvePolicy, streamWithRetry } from '../shared/retry.js';
import type { ResiliencePolicy, RetryOptions } from '../shared/retry.js';
import { translateStream } from '../shared/translate.js';
import { toOllamaRequest } from './convert.js';
import type { OllamaThink } from './convert.js';
import { toOllamaModelError } from './errors.js';
import { guardedFetch } from './guarded-fetch.js';
import { OllamaStreamTranslator } from './stream.js';

/** Options of `OllamaChatModel`. */
export type OllamaChatModelOptions = {
  /** Model name, e.g. `qwen3` or `qwen3:8b`. */
  model: string;
  /** Server address (the SDK's default is `http://127.0.0.1:11434`). */
  host?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Extra request headers, e.g. an `Authorization` for a hosted server. */
  headers?: Record<string, string>;
  /** Thinking for thinking models: on, off, or an effort level. */
  think?: OllamaThink;
  /** `num_predict` of each call. */
  maxTokens?: number;
  /** Sampling temperature. */
  temperature?: number;
  /** How long the server keeps the model loaded after a call (`keep_alive`). */
  keepAlive?: string | number;
  /** Retries of a failed call before its first chunk (default 2). */
  maxRetries?: number;
  /** Backoff timing of those retries. */
  retry?: RetryOptions;
  /** A model to use when this one keeps failing with a retryable or 5xx error. */
  fallback?: ChatModel;
  /** The model's `name` (default `ollama:<model>`). */
  name?: string;
  /** Receives retry and fallback notices. */
  logger?: Logger;
};

/**
 * A `ChatModel` over Ollama's native chat API (`/api/chat`), through the
 * official `ollama` package. Streams text, thinking and tool calls.
 *
 * Aborting the signal makes the stream throw a `DOMException` named
 * `AbortError`, wherever the call was.
 *
 * @example
 * const model = new OllamaChatModel({ model: 'qwen3', think: true });
 */
export class OllamaChatModel implements ChatModel {
  readonly name: string;
  readonly #options: OllamaChatModelOptions;
  readonly #policy: ResiliencePolicy;

  constructor(options: OllamaChatModelOptions) {
    this.name = options.name ?? `ollama:${options.model}`;
    this.#options = options;
    this.#policy = resolvePolicy({
      provider: 'ollama',
      maxRetries: options.maxRetries,
      retry: options.retry,
      fallback: options.fallback,
      logger: options.logger ?? silentLogger,
    });
  }

  /** Streams one model call; see the class docs for errors and abort. */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk> {
    return streamWithRetry(request, signal, this.#policy, (attemptSignal) =>
      this.#attempt(request, attemptSignal),
    );
  }

  /**
   * One call. The client is made per call because the SDK's chat API takes
   * no `AbortSignal`: the call's signal goes in through its `fetch`, which
   * is aborted on the way out too, so a consumer that stops reading early
   * closes the connection.
   */
  async *#attempt(
    request: ChatRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ChatChunk, void, undefined> {
    const local = new AbortController();
    const callSignal =
      signal === undefined ? local.signal : AbortSignal.any([signal, local.signal]);
    const client = new Ollama({
      fetch: guardedFetch(this.#options.fetch ?? fetch, callSignal),
      ...(this.#options.host === undefined ? {} : { host: this.#options.host }),
      ...(this.#options.headers === undefined ? {} : { headers: this.#options.headers }),
    });
    const body = toOllamaRequest(request, {
      model: this.#options.model,
      think: this.#options.think,
      maxTokens: this.#options.maxTokens,
      temperature: this.#options.temperature,
      keepAlive: this.#options.keepAlive,
    });
    try {
      let events: AsyncIterable<unknown>;
      try {
        events = await client.chat(body);
      } catch (error) {
        throw toOllamaModelError(error);
      }
      yield* translateStream(
        'ollama',
        events,
        new OllamaStreamTranslator(),
        signal,
        toOllamaModelError,
      );
    } finally {
      local.abort();
    }
  }
}
