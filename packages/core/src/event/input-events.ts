import type { PermissionRule, ToolCallBlock, ToolResultBlock } from '../message/index.js';
import { newId, nowIso } from '../util/ids.js';

/**
 * The user's answer to one `REQUIRE_USER_CONFIRM` tool call. `toolCall` is the
 * call given back, possibly with edited `input`; `rules` are accepted
 * suggestions; `reason` is shown to the model when denied.
 */
export type ConfirmResult = {
  confirmed: boolean;
  toolCall: ToolCallBlock;
  rules?: PermissionRule[] | null;
  reason?: string;
};

type InputBase = { id?: string; createdAt?: string; metadata?: Record<string, unknown> };

/** Resumes a reply parked on `REQUIRE_USER_CONFIRM`. */
export type UserConfirmResultEvent = InputBase & {
  type: 'USER_CONFIRM_RESULT';
  replyId: string;
  confirmResults: ConfirmResult[];
};

/** Resumes a reply parked on `REQUIRE_EXTERNAL_EXECUTION` with the results made outside. */
export type ExternalExecutionResultEvent = InputBase & {
  type: 'EXTERNAL_EXECUTION_RESULT';
  replyId: string;
  executionResults: ToolResultBlock[];
};

/** Ends a parked reply; every open tool call is closed as interrupted. */
export type UserInterruptEvent = InputBase & { type: 'USER_INTERRUPT'; replyId: string };

/** Events that resume or end a parked reply. */
export type InputEvent = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent;

/** Builds a `USER_CONFIRM_RESULT` event. */
export function userConfirmResultEvent(fields: {
  replyId: string;
  confirmResults: ConfirmResult[];
  metadata?: Record<string, unknown>;
}): UserConfirmResultEvent {
  return { id: newId(), createdAt: nowIso(), metadata: {}, type: 'USER_CONFIRM_RESULT', ...fields };
}

/** Builds an `EXTERNAL_EXECUTION_RESULT` event. */
export function externalExecutionResultEvent(fields: {
  replyId: string;
  executionResults: ToolResultBlock[];
  metadata?: Record<string, unknown>;
}): ExternalExecutionResultEvent {
  return {
    id: newId(),
    createdAt: nowIso(),
    metadata: {},
    type: 'EXTERNAL_EXECUTION_RESULT',
    ...fields,
  };
}

/** Builds a `USER_INTERRUPT` event. */
export function userInterruptEvent(fields: {
  replyId: string;
  metadata?: Record<string, unknown>;
}): UserInterruptEvent {
  return { id: newId(), createdAt: nowIso(), metadata: {}, type: 'USER_INTERRUPT', ...fields };
}

const inputTypes: ReadonlySet<unknown> = new Set([
  'USER_CONFIRM_RESULT',
  'EXTERNAL_EXECUTION_RESULT',
  'USER_INTERRUPT',
]);

/** True for anything that claims to be an input event (its `type` is one); shape is checked by the codec. */
export function looksLikeInputEvent(value: unknown): value is { type: InputEvent['type'] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'type' in value &&
    inputTypes.has(value.type)
  );
}
