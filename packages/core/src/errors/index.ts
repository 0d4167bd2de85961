export { ParleyError, assertNever } from './parley-error.js';
export {
  AgentBusyError,
  AgentParkedError,
  ConcurrentResumeError,
  InvalidEventError,
  InvalidInputError,
  InvalidStateError,
  InvalidToolResultError,
  ModelError,
  NotWaitingError,
  ReplyExpiredError,
  StaleReplyError,
  StaleSessionError,
  UnknownToolCallError,
} from './errors.js';
