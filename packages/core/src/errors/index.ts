export { ParleyError, assertNever } from './parley-error.js';
export {
  AgentBusyError,
  AgentParkedError,
  AnswerNotAllowedError,
  ConcurrentResumeError,
  InvalidEventError,
  InvalidInputError,
  InvalidStateError,
  InvalidToolResultError,
  ModelError,
  NotWaitingError,
  ReplyExpiredError,
  SessionBusyError,
  StaleReplyError,
  StaleSessionError,
  UnknownRuleError,
  UnknownToolCallError,
} from './errors.js';
