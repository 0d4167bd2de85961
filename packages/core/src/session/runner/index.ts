/**
 * The session runner: agents on stored sessions, exactly once, with expiry
 * and an audit trail. It sits above the agent (it builds agents), so it is
 * exported from the package entry, not from `session/index.ts`.
 */
export type { ExpirySweep, SessionReplyOptions, SessionsOptions } from './sessions.js';
export { Sessions } from './sessions.js';
export type { PersistSchedule, SessionAgentOptions } from './session-call.js';
export type { Answer, AnswerRequest, MayAnswer } from './answer-check.js';
export type { RuleToRevoke } from './revoke-rule.js';
