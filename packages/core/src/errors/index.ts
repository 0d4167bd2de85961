export { ParleyError, assertNever } from './parley-error.js';
export {
  AgentBusyError,
  AgentParkedError,
  InvalidEventError,
  InvalidInputError,
  InvalidStateError,
  InvalidToolResultError,
  ModelError,
  NotWaitingError,
  StaleReplyError,
  StaleSessionError,
  UnknownToolCallError,
} from './errors.js';
