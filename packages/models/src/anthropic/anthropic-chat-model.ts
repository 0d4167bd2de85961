import Anthropic from '@anthropic-ai/sdk';
import { ModelError } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Logger } from '@parley/core';
import { silentLogger, toSdkLogger } from '../shared/logger.js';
import { resolvePolicy, streamWithRetry } from '../shared/retry.js';
import type { ResiliencePolicy, RetryOptions } from '../shared/retry.js';
import { translateStream } from '../shared/translate.js';
import { toAnthropicParams } from './convert.js';
import type { AnthropicThinking } from './convert.js';
import { toAnthropicModelError } from './errors.js';
import { AnthropicStreamTranslator } from './stream.js';

/** `max_tokens` when none is given: room for an answer (plus the thinking budget, if on). */
const DEFAULT_MAX_TOKENS = 4096;

/** Options of `AnthropicChatModel`. */
export type AnthropicChatModelOptions = {
  /** Model id, e.g. `claude-sonnet-4-6`. */
  model: string;
  /** API key; defaults to `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Base URL of the API or a compatible proxy. */
  baseURL?: string;
  /** Retries of a failed call before its first chunk (default 2). The SDK's own retries are off. */
  maxRetries?: number;
  /** Backoff timing of those retries. */
  retry?: RetryOptions;
  /** A model to use when this one keeps failing with a retryable or 5xx error. */
  fallback?: ChatModel;
  /** `max_tokens` of each call (default 4096, plus the thinking budget when thinking is on). */
  maxTokens?: number;
  /** Sampling temperature (the API refuses it together with thinking). */
  temperature?: number;
  /**
   * Turns extended thinking on: `{ type: 'enabled', budgetTokens }` (the
   * API's minimum budget is 1024) or `{ type: 'adaptive' }`.
   */
  thinking?: AnthropicThinking;
  /** Request timeout in milliseconds (the SDK's default is 10 minutes). */
  timeoutMs?: number;
  /** The model's `name` (default `anthropic:<model>`). */
  name?: string;
  /** Receives retry/fallback notices, skipped-block warnings and the SDK's own log lines. */
  logger?: Logger;
};

/**
 * A `ChatModel` over Anthropic's Messages API, through the official
 * `@anthropic-ai/sdk`. Streams text, thinking (with its signature, which
 * must come back unchanged in later requests) and tool calls.
 *
 * Note: for model ids the SDK lists as deprecated (`claude-sonnet-4-5` in
 * SDK 0.137) the SDK itself prints a warning with `console.warn`; that line
 * cannot be routed to `logger`.
 *
 * Aborting the signal makes the stream throw a `DOMException` named
 * `AbortError` (not the SDK's `APIUserAbortError`), wherever the call was.
 *
 * @example
 * const model = new AnthropicChatModel({
 *   model: 'claude-sonnet-4-6',
 *   thinking: { type: 'enabled', budgetTokens: 2048 },
 * });
 */
export class AnthropicChatModel implements ChatModel {
  readonly name: string;
  readonly #client: Anthropic;
  readonly #options: AnthropicChatModelOptions;
  readonly #policy: ResiliencePolicy;
  readonly #logger: Logger;

  constructor(options: AnthropicChatModelOptions) {
    this.#logger = options.logger ?? silentLogger;
    this.name = options.name ?? `anthropic:${options.model}`;
    this.#options = options;
    this.#policy = resolvePolicy({
      provider: 'anthropic',
      maxRetries: options.maxRetries,
      retry: options.retry,
      fallback: options.fallback,
      logger: this.#logger,
    });
    try {
      this.#client = new Anthropic({
        maxRetries: 0,
        logger: toSdkLogger(this.#logger, 'anthropic'),
        ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
        ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      });
    } catch (error) {
      throw new ModelError(
        `Cannot create the Anthropic client: ${error instanceof Error ? error.message : String(error)}`,
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
    const thinking = this.#options.thinking;
    const budget = thinking?.type === 'enabled' ? thinking.budgetTokens : 0;
    const params = toAnthropicParams(request, {
      model: this.#options.model,
      maxTokens: this.#options.maxTokens ?? DEFAULT_MAX_TOKENS + budget,
      temperature: this.#options.temperature,
      thinking,
    });
    let events: AsyncIterable<unknown>;
    try {
      events = await this.#client.messages.create(params, signal === undefined ? {} : { signal });
    } catch (error) {
      throw toAnthropicModelError(error);
    }
    yield* translateStream(
      'anthropic',
      events,
      new AnthropicStreamTranslator(this.#logger),
      signal,
      toAnthropicModelError,
    );
  }
}
