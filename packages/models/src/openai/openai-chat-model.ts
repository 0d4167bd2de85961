import OpenAI from 'openai';
import { ModelError } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { silentLogger, toSdkLogger } from '../shared/logger.js';
import { resolvePolicy, streamWithRetry } from '../shared/retry.js';
import type { ResiliencePolicy, RetryOptions } from '../shared/retry.js';
import { translateStream } from '../shared/translate.js';
import { toOpenAIParams } from './convert.js';
import { toOpenAIModelError } from './errors.js';
import { OpenAIStreamTranslator } from './stream.js';

/** Options of `OpenAIChatModel`. */
export type OpenAIChatModelOptions = {
  /** Model id, e.g. `gpt-4.1-mini`, or the id an OpenAI-compatible server knows. */
  model: string;
  /** API key; defaults to `OPENAI_API_KEY`. With a `baseURL` and no key at all, a placeholder is sent. */
  apiKey?: string;
  /** Base URL of an OpenAI-compatible server (vLLM, DeepSeek, llama.cpp server…), e.g. `http://localhost:8000/v1`. */
  baseURL?: string;
  /** Retries of a failed call before its first chunk (default 2). The SDK's own retries are off. */
  maxRetries?: number;
  /** Backoff timing of those retries. */
  retry?: RetryOptions;
  /** A model to use when this one keeps failing with a retryable or 5xx error. */
  fallback?: ChatModel;
  /** `max_completion_tokens` of each call. */
  maxTokens?: number;
  /** Sampling temperature. */
  temperature?: number;
  /** Request timeout in milliseconds (the SDK's default is 10 minutes). */
  timeoutMs?: number;
  /** The model's `name` (default `openai:<model>`). */
  name?: string;
  /** Receives retry/fallback notices and the SDK's own log lines. */
  logger?: Logger;
};

/**
 * A `ChatModel` over OpenAI's Chat Completions API, through the official
 * `openai` SDK. With `baseURL` it serves any OpenAI-compatible server.
 *
 * Aborting the signal makes the stream throw a `DOMException` named
 * `AbortError` (not the SDK's `APIUserAbortError`), wherever the call was.
 *
 * @example
 * const model = new OpenAIChatModel({ model: 'gpt-4.1-mini' });
 * const local = new OpenAIChatModel({ model: 'qwen3', baseURL: 'http://localhost:8000/v1' });
 */
export class OpenAIChatModel implements ChatModel {
  readonly name: string;
  readonly #client: OpenAI;
  readonly #options: OpenAIChatModelOptions;
  readonly #policy: ResiliencePolicy;

  constructor(options: OpenAIChatModelOptions) {
    const logger = options.logger ?? silentLogger;
    this.name = options.name ?? `openai:${options.model}`;
    this.#options = options;
    this.#policy = resolvePolicy({
      provider: 'openai',
      maxRetries: options.maxRetries,
      retry: options.retry,
      fallback: options.fallback,
      logger,
    });
    const apiKey =
      options.apiKey ??
      (options.baseURL !== undefined && process.env['OPENAI_API_KEY'] === undefined
        ? 'not-needed'
        : undefined);
    try {
      this.#client = new OpenAI({
        maxRetries: 0,
        logger: toSdkLogger(logger, 'openai'),
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      });
    } catch (error) {
      throw new ModelError(
        `Cannot create the OpenAI client: ${error instanceof Error ? error.message : String(error)}`,
        { code: 'model_configuration', cause: error },
      );
    }
  }

  /** Streams one model call; see the class docs for errors and abort. */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk> {
    return streamWithRetry(request, signal, this.#policy, (attemptSignal) =>
      this.#attempt(request, attemptSignal),
    );
  }

  async *#attempt(
    request: ChatRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ChatChunk, void, undefined> {
    const params = toOpenAIParams(request, {
      model: this.#options.model,
      maxTokens: this.#options.maxTokens,
      temperature: this.#options.temperature,
    });
    const mapError = (error: unknown): unknown => toOpenAIModelError(error, 'openai');
    let events: AsyncIterable<unknown>;
    try {
      events = await this.#client.chat.completions.create(
        params,
        signal === undefined ? {} : { signal },
      );
    } catch (error) {
      throw mapError(error);
    }
    yield* translateStream(
      'openai',
      events,
      new OpenAIStreamTranslator('openai'),
      signal,
      mapError,
    );
  }
}
