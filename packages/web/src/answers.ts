import {
  askUserResult,
  externalExecutionResultEvent,
  toolCallBlockSchema,
  userConfirmResultEvent,
} from '@parley/core';
import type {
  AskUserAnswer,
  ConfirmResult,
  ExternalExecutionResultEvent,
  ToolCallBlock,
  UserConfirmResultEvent,
} from '@parley/core';
import type { WaitingCall } from './api/client.js';

/** What a person decided about one call waiting for confirmation. */
export type Decision =
  | { kind: 'allow' }
  | { kind: 'always' }
  | { kind: 'deny'; reason: string }
  | { kind: 'edit'; input: string };

/**
 * The tool call block of a waiting call, checked with core's schema (the
 * server's summary types its fields loosely), or undefined when it is not
 * one.
 */
export function toolCallOf(call: WaitingCall): ToolCallBlock | undefined {
  const parsed = toolCallBlockSchema.safeParse({
    type: call.type,
    id: call.id,
    name: call.name,
    input: call.input,
    state: call.state,
    suggestedRules: call.suggestedRules,
  });
  return parsed.success ? parsed.data : undefined;
}

/** One confirmation result of the `USER_CONFIRM_RESULT` event for `decision`. */
export function confirmResultOf(toolCall: ToolCallBlock, decision: Decision): ConfirmResult {
  switch (decision.kind) {
    case 'allow':
      return { confirmed: true, toolCall };
    case 'always':
      return { confirmed: true, toolCall, rules: toolCall.suggestedRules };
    case 'deny':
      return {
        confirmed: false,
        toolCall,
        ...(decision.reason.trim() === '' ? {} : { reason: decision.reason.trim() }),
      };
    case 'edit':
      return { confirmed: true, toolCall: { ...toolCall, input: decision.input } };
    default:
      return assertNever(decision);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unexpected decision ${JSON.stringify(value)}`);
}

/** The `USER_CONFIRM_RESULT` answering the given calls of a parked reply (one or a whole batch). */
export function confirmEvent(
  replyId: string,
  decisions: readonly { toolCall: ToolCallBlock; decision: Decision }[],
): UserConfirmResultEvent {
  return userConfirmResultEvent({
    replyId,
    confirmResults: decisions.map(({ toolCall, decision }) => confirmResultOf(toolCall, decision)),
  });
}

/** The `EXTERNAL_EXECUTION_RESULT` of an external call: the text a person reported, as success or error. */
export function externalEvent(
  replyId: string,
  toolCall: ToolCallBlock,
  text: string,
  state: 'success' | 'error',
): ExternalExecutionResultEvent {
  return externalExecutionResultEvent({
    replyId,
    executionResults: [
      { type: 'tool_result', id: toolCall.id, name: toolCall.name, output: text, state },
    ],
  });
}

/** The `EXTERNAL_EXECUTION_RESULT` answering an AskUser call. */
export function askUserEvent(
  replyId: string,
  toolCall: ToolCallBlock,
  answers: AskUserAnswer[],
): ExternalExecutionResultEvent {
  return externalExecutionResultEvent({
    replyId,
    executionResults: [askUserResult(toolCall, answers)],
  });
}
