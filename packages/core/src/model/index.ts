export type { ChatChunk, ChatModel, ChatRequest, ChatUsage, ToolSchema } from './chat-model.js';
export type { ConversationTurn } from './conversation.js';
export { toConversation } from './conversation.js';
