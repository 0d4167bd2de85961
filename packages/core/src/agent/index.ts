export { Agent } from './agent.js';
export type { AgentOptions, Checkpoint, CheckpointReason, ReplyOptions } from './options.js';
export type {
  ActingContext,
  Middleware,
  ModelCallContext,
  PermissionCheckContext,
  RunInfo,
} from './middleware.js';
export type { ReplyInput } from './input.js';
export { agentTexts } from './texts.js';
export type { ExpiryAction } from './expiry.js';
export { expiryTexts, isReplyExpired } from './expiry.js';
