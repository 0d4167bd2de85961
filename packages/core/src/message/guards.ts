import type {
  ContentBlock,
  DataBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
} from './blocks.js';

export const isTextBlock = (block: ContentBlock): block is TextBlock => block.type === 'text';
export const isDataBlock = (block: ContentBlock): block is DataBlock => block.type === 'data';
export const isThinkingBlock = (block: ContentBlock): block is ThinkingBlock =>
  block.type === 'thinking';
export const isToolCallBlock = (block: ContentBlock): block is ToolCallBlock =>
  block.type === 'tool_call';
export const isToolResultBlock = (block: ContentBlock): block is ToolResultBlock =>
  block.type === 'tool_result';
