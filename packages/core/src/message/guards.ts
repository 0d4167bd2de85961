import type {
  ContentBlock,
  DataBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
} from './blocks.js';

/** Whether a block is a `TextBlock` (narrows it). */
export const isTextBlock = (block: ContentBlock): block is TextBlock => block.type === 'text';
/** Whether a block is a `DataBlock` (narrows it). */
export const isDataBlock = (block: ContentBlock): block is DataBlock => block.type === 'data';
/** Whether a block is a `ThinkingBlock` (narrows it). */
export const isThinkingBlock = (block: ContentBlock): block is ThinkingBlock =>
  block.type === 'thinking';
/** Whether a block is a `ToolCallBlock` (narrows it). */
export const isToolCallBlock = (block: ContentBlock): block is ToolCallBlock =>
  block.type === 'tool_call';
/** Whether a block is a `ToolResultBlock` (narrows it). */
export const isToolResultBlock = (block: ContentBlock): block is ToolResultBlock =>
  block.type === 'tool_result';
