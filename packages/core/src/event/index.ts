export type * from './output-events.js';
export type {
  ConfirmResult,
  ExternalExecutionResultEvent,
  InputEvent,
  UserConfirmResultEvent,
  UserInterruptEvent,
} from './input-events.js';
export {
  externalExecutionResultEvent,
  looksLikeInputEvent,
  userConfirmResultEvent,
  userInterruptEvent,
} from './input-events.js';
export { makeEvent } from './factories.js';
export {
  dataBlockDeltaEvent,
  dataBlockEndEvent,
  dataBlockStartEvent,
  exceedMaxItersEvent,
  hintBlockEvent,
  modelCallEndEvent,
  modelCallStartEvent,
  replyEndEvent,
  replyStartEvent,
  requireExternalExecutionEvent,
  requireUserConfirmEvent,
  textBlockDeltaEvent,
  textBlockEndEvent,
  textBlockStartEvent,
  thinkingBlockDeltaEvent,
  thinkingBlockEndEvent,
  thinkingBlockStartEvent,
  toolCallDeltaEvent,
  toolCallEndEvent,
  toolCallStartEvent,
  toolResultDataDeltaEvent,
  toolResultEndEvent,
  toolResultStartEvent,
  toolResultTextDeltaEvent,
} from './factories.js';
export {
  agentEventSchema,
  agentEventSchemas,
  agentEventTypes,
  confirmResultSchema,
  inputEventSchema,
  inputEventSchemas,
  inputEventTypes,
  isAgentEventType,
  isInputEventType,
} from './schemas.js';
export { decodeEvent, encodeEvent, parseAgentEvent, parseInputEvent } from './codec.js';
