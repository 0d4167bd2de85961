import {
  AskUser,
  ReplyExpiredError,
  askUserMetadataSchema,
  askUserResult,
  checkAskUserAnswers,
  describeZodIssues,
  isReplyExpired,
  parseToolInput,
  permissionRuleSchema,
  samePermissionRule,
  textBlockSchema,
} from '@parley/core';
import type {
  AgentState,
  ConfirmResult,
  Toolkit,
  ToolCallBlock,
  ToolResultBlock,
} from '@parley/core';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { waitingCallsOf } from '../waiting/session-summary.js';
import type { WaitingCall } from '../waiting/session-summary.js';
import { decodeInterruptId, kindOf } from './interrupts.js';
import type { AguiMessage, AguiResumeEntry } from './wire-types.js';

/**
 * What a run's input answers about the parked reply: confirmations and
 * denials, results (AskUser answers, external results, the client's tool
 * messages), or the whole reply stopped (every open interrupt cancelled).
 * `warnings` name what was ignored: unknown interrupt ids, answers to calls
 * no longer open.
 */
export type RunAnswers = {
  replyId: string | undefined;
  /** The reply expired and its interrupts were cancelled: settle it as its expiry says. */
  settleExpired: boolean;
  confirmations: ConfirmResult[];
  results: ToolResultBlock[];
  interrupt: boolean;
  warnings: string[];
};

const confirmPayload = z.union([
  z.strictObject({
    approved: z.literal(true),
    editedArgs: z.record(z.string(), z.unknown()).optional(),
    rules: z.array(permissionRuleSchema).optional(),
  }),
  z.strictObject({ approved: z.literal(false), reason: z.string().optional() }),
]);

const externalPayload = z.strictObject({
  output: z.union([z.string(), z.array(textBlockSchema)]),
  state: z.enum(['success', 'error', 'interrupted']).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** What an input gives the runner about a run, besides the state. */
export type AnswerSources = {
  state: AgentState | undefined;
  /** The agent's toolkit for this run, the client's tools included. */
  toolkit: Toolkit;
  clientTools: ReadonlySet<string>;
  resume: readonly AguiResumeEntry[];
  messages: readonly AguiMessage[];
  now: Date;
};

function refuse(path: string, problem: string): never {
  throw new InvalidRequestError(path, `${path}: ${problem}`);
}

function parsePayload<T>(schema: z.ZodType<T>, payload: unknown, path: string): T {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) refuse(path, describeZodIssues(parsed.error));
  return parsed.data;
}

/** The call as a plain block, without the server's `awaiting`. */
function blockOf(call: WaitingCall): ToolCallBlock {
  return {
    type: 'tool_call',
    id: call.id,
    name: call.name,
    input: call.input,
    state: call.state,
    suggestedRules: call.suggestedRules,
  };
}

function confirmation(
  call: WaitingCall,
  payload: unknown,
  toolkit: Toolkit,
  path: string,
): ConfirmResult {
  const answer = parsePayload(confirmPayload, payload, path);
  const toolCall = blockOf(call);
  if (!answer.approved) {
    return {
      confirmed: false,
      toolCall,
      ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    };
  }
  const rules = answer.rules ?? [];
  rules.forEach((rule, index) => {
    if (!call.suggestedRules.some((suggested) => samePermissionRule(suggested, rule))) {
      refuse(`${path}.rules.${index}`, 'only a rule suggested with the call can be kept');
    }
  });
  if (answer.editedArgs !== undefined) {
    const tool = toolkit.get(call.name);
    const input = JSON.stringify(answer.editedArgs);
    if (tool !== undefined) {
      const checked = parseToolInput(tool, input);
      if (!checked.ok) refuse(`${path}.editedArgs`, checked.reason);
    }
    toolCall.input = input;
  }
  return { confirmed: true, toolCall, rules };
}

function askResult(call: WaitingCall, payload: unknown, path: string): ToolResultBlock {
  const answers = parsePayload(askUserMetadataSchema, payload, path);
  const asked = parseToolInput(AskUser, call.input);
  if (asked.ok) {
    const problem = checkAskUserAnswers(asked.input, answers);
    if (problem !== undefined) refuse(`${path}.answers`, problem);
  }
  return askUserResult(blockOf(call), answers.answers);
}

function externalResult(
  call: WaitingCall,
  payload: unknown,
  toolkit: Toolkit,
  path: string,
): ToolResultBlock {
  const answer = parsePayload(externalPayload, payload, path);
  const state = answer.state ?? 'success';
  const tool = toolkit.get(call.name);
  if (state === 'success' && tool !== undefined) {
    const input = parseToolInput(tool, call.input);
    const problem = input.ok ? tool.checkResultMetadata(input.input, answer.metadata) : undefined;
    if (problem !== undefined) refuse(`${path}.metadata`, problem);
  }
  return {
    type: 'tool_result',
    id: call.id,
    name: call.name,
    output: answer.output,
    state,
    ...(answer.metadata === undefined ? {} : { metadata: answer.metadata }),
  };
}

/** When expiry closed a finished call: the reply it was in and the deadline it missed. */
function expiredAt(
  state: AgentState,
  toolCallId: string,
): { replyId: string; deadline: string } | undefined {
  for (const message of state.context) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result' || block.id !== toolCallId) continue;
      const expired = block.metadata?.['expired'];
      return typeof expired === 'string' ? { replyId: message.id, deadline: expired } : undefined;
    }
  }
  return undefined;
}

/** The text of a tool message's content (text parts only). */
function messageText(content: Extract<AguiMessage, { role: 'tool' }>['content']): string {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/**
 * Reads what a run's input answers (HTTP.md, "AG-UI"), checking every
 * answer before anything is applied: a bad payload, an edit the tool's
 * schema refuses, a rule that was not suggested, AskUser answers that do
 * not fit the questions, an external result its `outputMetadata` refuses
 * are 400; an answer to a reply past its deadline, or to a call its expiry
 * closed, is 410. Cancelled entries leave their calls open unless every
 * open interrupt is cancelled and nothing else is answered: then the reply
 * is stopped.
 */
export function answersOf(sources: AnswerSources): RunAnswers {
  const { state, toolkit, clientTools, now } = sources;
  const reply = state?.reply?.status === 'parked' ? state.reply : undefined;
  const waiting = state === undefined ? [] : waitingCallsOf(state);
  const byId = new Map(waiting.map((call) => [call.id, call]));
  const answers: RunAnswers = {
    replyId: reply?.replyId,
    settleExpired: false,
    confirmations: [],
    results: [],
    interrupt: false,
    warnings: [],
  };
  const expired = state !== undefined && reply !== undefined && isReplyExpired(state, now);
  const answered = new Set<string>();
  const cancelled = new Set<string>();
  sources.resume.forEach((entry, index) => {
    const path = `resume.${index}`;
    if (answered.has(entry.interruptId) || cancelled.has(entry.interruptId)) {
      refuse(`${path}.interruptId`, `interrupt '${entry.interruptId}' is answered twice`);
    }
    const decoded = decodeInterruptId(entry.interruptId);
    const call = decoded === undefined ? undefined : byId.get(decoded.toolCallId);
    if (decoded === undefined || call === undefined || kindOf(call) !== decoded.kind) {
      const closed =
        decoded === undefined || state === undefined || entry.status === 'cancelled'
          ? undefined
          : expiredAt(state, decoded.toolCallId);
      if (closed !== undefined && state !== undefined) {
        throw new ReplyExpiredError(state.sessionId, closed.replyId, closed.deadline);
      }
      answers.warnings.push(
        `Interrupt '${entry.interruptId}' is not open; its answer was ignored.`,
      );
      return;
    }
    if (entry.status === 'cancelled') {
      cancelled.add(entry.interruptId);
      return;
    }
    if (expired && state !== undefined && reply !== undefined) {
      throw new ReplyExpiredError(state.sessionId, reply.replyId, reply.deadline ?? '');
    }
    answered.add(entry.interruptId);
    const payloadPath = `${path}.payload`;
    switch (decoded.kind) {
      case 'confirm':
        answers.confirmations.push(confirmation(call, entry.payload, toolkit, payloadPath));
        return;
      case 'ask':
        answers.results.push(askResult(call, entry.payload, payloadPath));
        return;
      case 'external':
        answers.results.push(externalResult(call, entry.payload, toolkit, payloadPath));
        return;
    }
  });
  for (const message of sources.messages) {
    if (message.role !== 'tool') continue;
    const call = byId.get(message.toolCallId);
    if (call === undefined) continue;
    if (call.awaiting !== 'external' || !clientTools.has(call.name)) {
      answers.warnings.push(
        `The tool message for call '${call.id}' was ignored: answer interrupt '${kindOf(call)}:${call.id}' with resume.`,
      );
      continue;
    }
    if (answers.results.some((result) => result.id === call.id)) continue;
    if (expired && state !== undefined && reply !== undefined) {
      throw new ReplyExpiredError(state.sessionId, reply.replyId, reply.deadline ?? '');
    }
    const text = messageText(message.content);
    answers.results.push({
      type: 'tool_result',
      id: call.id,
      name: call.name,
      output: message.error === undefined ? text : `${text}\n${message.error}`.trim(),
      state: message.error === undefined ? 'success' : 'error',
      metadata: { agui: { messageId: message.id } },
    });
  }
  const interrupts = waiting.filter(
    (call) => !(call.awaiting === 'external' && clientTools.has(call.name)),
  );
  const nothingElse = answers.confirmations.length === 0 && answers.results.length === 0;
  answers.settleExpired = expired && cancelled.size > 0 && nothingElse;
  answers.interrupt =
    !expired &&
    cancelled.size > 0 &&
    answers.confirmations.length === 0 &&
    answers.results.length === 0 &&
    interrupts.every((call) => cancelled.has(`${kindOf(call)}:${call.id}`));
  return answers;
}
