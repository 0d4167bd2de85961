import { ParleyError } from '@parley/core';
import type { ChatModel, Logger } from '@parley/core';
import { AnthropicChatModel } from './anthropic/anthropic-chat-model.js';
import { OllamaChatModel } from './ollama/ollama-chat-model.js';
import { OpenAIChatModel } from './openai/openai-chat-model.js';
import type { RetryOptions } from './shared/retry.js';

/** A model spec `createModel` cannot read: unknown provider, missing model, bad URL. */
export class InvalidModelSpecError extends ParleyError {
  /** The spec as given. */
  readonly spec: string;
  constructor(spec: string, reason: string) {
    super('invalid_model_spec', `Invalid model spec '${spec}': ${reason}`);
    this.spec = spec;
  }
}

/** Options `createModel` passes to whichever adapter the spec names. */
export type CreateModelOptions = {
  /** Retries of a failed call before its first chunk (default 2). */
  maxRetries?: number;
  /** Backoff timing of those retries. */
  retry?: RetryOptions;
  /** A model to use when this one keeps failing with a retryable or 5xx error. */
  fallback?: ChatModel;
  /** Receives retry/fallback notices and SDK log lines. */
  logger?: Logger;
};

const SPECS = 'openai:MODEL, anthropic:MODEL, ollama:MODEL or openai-compatible:URL#MODEL';

/**
 * Builds a model from a one-line spec, as a CLI flag or a config file gives
 * it: `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-6`, `ollama:qwen3`
 * (tags keep their colon: `ollama:qwen3:8b`), or
 * `openai-compatible:http://localhost:8000/v1#qwen3` for any server that
 * speaks Chat Completions. `scripted:…` is refused here: scripted models
 * come from `@parley/core/testing`, and the CLI builds them itself.
 * Credentials come from the environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
 *
 * @example
 * const model = createModel(process.env.PARLEY_MODEL ?? 'ollama:qwen3');
 */
export function createModel(spec: string, options: CreateModelOptions = {}): ChatModel {
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  if (provider === 'scripted') {
    throw new InvalidModelSpecError(
      spec,
      'scripted models are not built here; use ScriptedModel from @parley/core/testing (the CLI does)',
    );
  }
  if (rest.trim() === '') throw new InvalidModelSpecError(spec, `expected ${SPECS}`);
  const common = {
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.fallback === undefined ? {} : { fallback: options.fallback }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
  switch (provider) {
    case 'openai':
      return new OpenAIChatModel({ model: rest, ...common });
    case 'anthropic':
      return new AnthropicChatModel({ model: rest, ...common });
    case 'ollama':
      return new OllamaChatModel({ model: rest, ...common });
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash < 0 ? rest : rest.slice(0, hash);
      const model = hash < 0 ? '' : rest.slice(hash + 1);
      if (model === '') {
        throw new InvalidModelSpecError(
          spec,
          'expected openai-compatible:URL#MODEL (the model after #)',
        );
      }
      if (!URL.canParse(baseURL)) {
        throw new InvalidModelSpecError(spec, `'${baseURL}' is not a URL`);
      }
      return new OpenAIChatModel({
        model,
        baseURL,
        name: `openai-compatible:${model}`,
        ...common,
      });
    }
    default:
      throw new InvalidModelSpecError(spec, `unknown provider '${provider}'; expected ${SPECS}`);
  }
}
