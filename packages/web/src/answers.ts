import {
  askUserResult,
  askUserSkipped,
  externalExecutionResultEvent,
  toolCallBlockSchema,
  userConfirmResultEvent,
} from '@parley/core';
import type {
  AskUserAnswer,
  ConfirmResult,
  ExternalExecutionResultEvent,
  ToolCallBlock,
  ToolResultBlock,
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

/** The `EXTERNAL_EXECUTION_RESULT` skipping an AskUser call (a cancelled answer the model reads). */
export function skipEvent(replyId: string, toolCall: ToolCallBlock): ExternalExecutionResultEvent {
  return externalExecutionResultEvent({ replyId, executionResults: [askUserSkipped(toolCall)] });
}

/** A call a parked reply waits on, with its reply. */
type Waiting = { replyId: string; call: WaitingCall };

/** How the calls waiting now split: confirmations, AskUser questions, other external calls. */
function split(waiting: readonly Waiting[]) {
  const calls = waiting.flatMap(({ replyId, call }) => {
    const toolCall = toolCallOf(call);
    return toolCall === undefined ? [] : [{ replyId, toolCall, awaiting: call.awaiting }];
  });
  return {
    confirm: calls.filter((entry) => entry.awaiting === 'confirm'),
    ask: calls.filter((entry) => entry.awaiting !== 'confirm' && entry.toolCall.name === 'AskUser'),
    external: calls.filter(
      (entry) => entry.awaiting !== 'confirm' && entry.toolCall.name !== 'AskUser',
    ),
  };
}

/** The result of an external call a person did not give, with what they said instead. */
function notGiven(toolCall: ToolCallBlock, text: string): ToolResultBlock {
  return {
    type: 'tool_result',
    id: toolCall.id,
    name: toolCall.name,
    output: `The user did not give this call's result, and said instead: ${text}`,
    state: 'error',
  };
}

/**
 * What a message typed while calls wait sends instead of a new message
 * (HTTP.md): the waiting confirmations denied with the message as their
 * reason, then AskUser questions skipped and other external calls closed,
 * each with the message. The model reads it in those results.
 */
export function insteadOfWaiting(
  waiting: readonly Waiting[],
  text: string,
): (UserConfirmResultEvent | ExternalExecutionResultEvent)[] {
  const { confirm, ask, external } = split(waiting);
  const events: (UserConfirmResultEvent | ExternalExecutionResultEvent)[] = [];
  const first = confirm[0];
  if (first !== undefined) {
    events.push(
      confirmEvent(
        first.replyId,
        confirm.map(({ toolCall }) => ({ toolCall, decision: { kind: 'deny', reason: text } })),
      ),
    );
  }
  const results = [
    ...ask.map(({ toolCall }) => askUserSkipped(toolCall, text)),
    ...external.map(({ toolCall }) => notGiven(toolCall, text)),
  ];
  const replyId = ask[0]?.replyId ?? external[0]?.replyId;
  if (replyId !== undefined && results.length > 0) {
    events.push(externalExecutionResultEvent({ replyId, executionResults: results }));
  }
  return events;
}

const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** What sending `text` now will do, said under the message box before it is sent. */
export function sendingNote(waiting: readonly Waiting[], text: string): string {
  const { confirm, ask, external } = split(waiting);
  const parts = [
    ...(confirm.length > 0
      ? [`deny the ${count(confirm.length, 'waiting call', 'waiting calls')}`]
      : []),
    ...(ask.length > 0 ? [`skip the ${count(ask.length, 'question', 'questions')}`] : []),
    ...(external.length > 0
      ? [
          `close the ${count(external.length, 'call waiting for a result', 'calls waiting for results')}`,
        ]
      : []),
  ];
  const what =
    parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `Sending will ${what} and tell the agent: “${text}”`;
}
