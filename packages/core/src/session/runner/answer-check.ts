import { openCallsOf } from '../../agent/resume.js';
import { AnswerNotAllowedError, InvalidEventError } from '../../errors/index.js';
import type { InputEvent } from '../../event/index.js';
import type { PermissionRule, ToolCallBlock, ToolResultBlock } from '../../message/index.js';
import { samePermissionRule } from '../../message/index.js';
import type { AgentState } from '../../state/index.js';

/** What a person answered about one waiting tool call. */
export type Answer =
  | { kind: 'confirm'; toolCall: ToolCallBlock; rules: PermissionRule[] }
  | { kind: 'deny'; reason?: string }
  | { kind: 'external_result'; result: ToolResultBlock }
  | { kind: 'interrupt' };

/**
 * One answer about one waiting tool call, as `SessionsOptions.mayAnswer`
 * sees it before anything is applied. `toolCall` is the call as it was
 * asked (stored), `answer` what came back: for a confirmation, the call as
 * given back (its `input` may be edited) and the rules accepted with it.
 * `approver` is the call's `approver` option (`null` when none was given).
 */
export type AnswerRequest = {
  sessionId: string;
  replyId: string;
  approver: string | null;
  toolCall: ToolCallBlock;
  answer: Answer;
};

/** Says whether `request.approver` may give `request.answer`; may be async. */
export type MayAnswer = (request: AnswerRequest) => boolean | Promise<boolean>;

/**
 * Asks `mayAnswer` about each answer `event` gives to the waiting calls of
 * the parked reply of `state`, in order, and throws `AnswerNotAllowedError`
 * at the first it refuses. An interrupt answers every waiting call. Answers
 * naming no waiting call are left to the agent, which refuses them.
 */
export async function checkMayAnswer(
  mayAnswer: MayAnswer,
  sessionId: string,
  approver: string | null,
  state: AgentState,
  event: InputEvent,
): Promise<void> {
  const waiting = new Map(
    openCallsOf(state)
      .filter((call) => call.state === 'asking' || call.state === 'submitted')
      .map((call) => [call.id, call]),
  );
  const requests: { id: string; answer: Answer }[] =
    event.type === 'USER_CONFIRM_RESULT'
      ? event.confirmResults.map((result) => ({
          id: result.toolCall.id,
          answer: result.confirmed
            ? { kind: 'confirm', toolCall: result.toolCall, rules: result.rules ?? [] }
            : { kind: 'deny', ...(result.reason === undefined ? {} : { reason: result.reason }) },
        }))
      : event.type === 'EXTERNAL_EXECUTION_RESULT'
        ? event.executionResults.map((result) => ({
            id: result.id,
            answer: { kind: 'external_result', result },
          }))
        : [...waiting.keys()].map((id) => ({ id, answer: { kind: 'interrupt' } }));
  for (const { id, answer } of requests) {
    const toolCall = waiting.get(id);
    if (toolCall === undefined) continue;
    const request: AnswerRequest = {
      sessionId,
      replyId: event.replyId,
      approver,
      toolCall,
      answer,
    };
    if ((await mayAnswer(request)) !== true) {
      throw new AnswerNotAllowedError(sessionId, event.replyId, toolCall, approver);
    }
  }
}

/**
 * Refuses a confirmation that keeps a rule not suggested with the call it
 * confirms (`InvalidEventError` naming the rule; nothing is applied).
 * Answers naming no waiting call are left to the agent, which refuses them.
 */
export function checkKeptRules(state: AgentState, event: InputEvent): void {
  if (event.type !== 'USER_CONFIRM_RESULT') return;
  const asking = new Map(openCallsOf(state).map((call) => [call.id, call]));
  event.confirmResults.forEach((result, index) => {
    const call = asking.get(result.toolCall.id);
    if (call === undefined || !result.confirmed) return;
    (result.rules ?? []).forEach((rule, at) => {
      if (!call.suggestedRules.some((suggested) => samePermissionRule(suggested, rule))) {
        throw new InvalidEventError(
          `confirmResults.${index}.rules.${at}`,
          `only a rule suggested with tool call '${call.id}' (${call.name}) can be kept`,
        );
      }
    });
  });
}
