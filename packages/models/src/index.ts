/**
 * `@parley/models`: `ChatModel` adapters over the official SDKs — OpenAI
 * Chat Completions (and every OpenAI-compatible server), Anthropic
 * Messages, Ollama's native chat — plus `createModel` to build one from a
 * spec string. Each adapter is also its own entry point
 * (`@parley/models/openai`, `/anthropic`, `/ollama`).
 */
export { AnthropicChatModel } from './anthropic/anthropic-chat-model.js';
export type { AnthropicChatModelOptions } from './anthropic/anthropic-chat-model.js';
export type { AnthropicThinking } from './anthropic/convert.js';
export { OllamaChatModel } from './ollama/ollama-chat-model.js';
export type { OllamaChatModelOptions } from './ollama/ollama-chat-model.js';
export type { OllamaThink } from './ollama/convert.js';
export { OpenAIChatModel } from './openai/openai-chat-model.js';
export type { OpenAIChatModelOptions } from './openai/openai-chat-model.js';
export { InvalidModelSpecError, createModel } from './create-model.js';
export type { CreateModelOptions } from './create-model.js';
export { MalformedChunkError, ModelApiError } from './shared/errors.js';
export type { RetryOptions } from './shared/retry.js';
