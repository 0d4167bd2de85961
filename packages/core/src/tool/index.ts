export type {
  AnyTool,
  Logger,
  Tool,
  ToolAnswer,
  ToolChunk,
  ToolContext,
  ToolDefinition,
  ToolEndChunk,
  ToolOutput,
  ToolResponse,
  ToolSuspendChunk,
} from './types.js';
export { tool, toolNameRule } from './tool.js';
export { Toolkit } from './toolkit.js';
export { TOOL_NAME_PATTERN, assertValidToolName, isValidToolName } from './tool-name.js';
export { describeZodIssues, parseToolInput } from './validation.js';
export type { InputCheck } from './validation.js';
export {
  AskUser,
  askUserAnswerSchema,
  askUserInputSchema,
  askUserMetadataSchema,
  askUserResult,
  askUserSkipped,
  checkAskUserAnswers,
} from './ask-user.js';
export type { AskUserAnswer, AskUserInput, AskUserMetadata } from './ask-user.js';
