export type {
  AllowedBy,
  PermissionBehavior,
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
} from './types.js';
export { PermissionEngine, createPermissionContext } from './engine.js';
export { permissionMessages } from './messages.js';
export { ruleNameMatches } from './rule-name.js';
export type { PermissionAsk } from './asks.js';
export { findPermissionAsk, PERMISSION_ASKS_KEY } from './asks.js';
