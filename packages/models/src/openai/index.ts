/**
 * `@parley/models/openai`: the Chat Completions adapter, for OpenAI and
 * every OpenAI-compatible server.
 */
export { OpenAIChatModel } from './openai-chat-model.js';
export type { OpenAIChatModelOptions } from './openai-chat-model.js';
export { MalformedChunkError, ModelApiError } from '../shared/errors.js';
export type { RetryOptions } from '../shared/retry.js';
