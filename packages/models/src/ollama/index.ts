/** `@parley/models/ollama`: the adapter for Ollama's native chat API. */
export { OllamaChatModel } from './ollama-chat-model.js';
export type { OllamaChatModelOptions } from './ollama-chat-model.js';
export type { OllamaThink } from './convert.js';
export { MalformedChunkError, ModelApiError } from '../shared/errors.js';
export type { RetryOptions } from '../shared/retry.js';
