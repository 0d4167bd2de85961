/** `@parley/models/anthropic`: the Messages API adapter. */
export { AnthropicChatModel } from './anthropic-chat-model.js';
export type { AnthropicChatModelOptions } from './anthropic-chat-model.js';
export type { AnthropicThinking } from './convert.js';
export { MalformedChunkError, ModelApiError } from '../shared/errors.js';
export type { RetryOptions } from '../shared/retry.js';
