export type {
  ContentBlock,
  DataBlock,
  HintBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolCallState,
  ToolResultBlock,
  ToolResultState,
} from './blocks.js';
export type { FinishedReason, Msg } from './msg.js';
export type { PermissionRule } from './permission-rule.js';
export { hasLoneSurrogate, samePermissionRule } from './permission-rule.js';
export { assistantMsg, blocksOf, textOf, userMsg } from './msg.js';
export {
  isDataBlock,
  isTextBlock,
  isThinkingBlock,
  isToolCallBlock,
  isToolResultBlock,
} from './guards.js';
export {
  contentBlockSchema,
  dataBlockSchema,
  finishedReasonSchema,
  hintBlockSchema,
  hintContentSchema,
  messageSchema,
  metadataSchema,
  permissionRuleSchema,
  textBlockSchema,
  thinkingBlockSchema,
  toolCallBlockSchema,
  toolCallStateSchema,
  toolResultBlockSchema,
  toolResultStateSchema,
} from './schemas.js';
