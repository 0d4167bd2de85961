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
