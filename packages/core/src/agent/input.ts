import type { ContentBlock, Msg } from '../message/index.js';
import { contentBlockSchema, messageSchema, userMsg } from '../message/index.js';
import type { InputEvent } from '../event/index.js';
import { looksLikeInputEvent, parseInputEvent } from '../event/index.js';
import type { AgentState } from '../state/index.js';
import type { Toolkit } from '../tool/index.js';
import { describeZodIssues } from '../tool/index.js';
import {
  AgentParkedError,
  InvalidInputError,
  NotWaitingError,
  StaleReplyError,
} from '../errors/index.js';
import { newId, nowIso } from '../util/ids.js';
import { takeAdoptedInput } from './adopt.js';
import { checkConfirm, checkExternal, openCallsOf } from './resume.js';
import { agentTexts } from './texts.js';

/** What `reply` can be given. */
export type ReplyInput = string | Msg | Msg[] | InputEvent;

/** What a call to `reply` will do, decided before anything changes. */
export type ReplyPlan =
  | { kind: 'new'; messages: Msg[] }
  | { kind: 'continue' }
  | { kind: 'interrupt' }
  | { kind: 'idle_interrupt' }
  | { kind: 'confirm'; event: Extract<InputEvent, { type: 'USER_CONFIRM_RESULT' }> }
  | { kind: 'external'; event: Extract<InputEvent, { type: 'EXTERNAL_EXECUTION_RESULT' }> };

const forbiddenInInput = new Set<ContentBlock['type']>(['tool_call', 'tool_result', 'thinking']);
const allowedInInput = new Set<unknown>(['text', 'data', 'hint']);

function checkMessage(value: unknown, index: number): Msg {
  const where = index < 0 ? 'The input message' : `Input message ${index}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInputError(`${where} must be a message object, a string or an input event.`);
  }
  const message = value as Partial<Msg>;
  if (message.role !== 'user' && message.role !== 'assistant') {
    throw new InvalidInputError(
      `${where} has role ${JSON.stringify(message.role)}; a reply takes user or assistant messages.`,
    );
  }
  const content = message.content;
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw new InvalidInputError(`${where} has no content (a string or a list of blocks).`);
  }
  if (Array.isArray(content)) {
    content.forEach((block: Partial<ContentBlock> | null, at) => {
      const type = block?.type;
      if (type === undefined || forbiddenInInput.has(type)) {
        throw new InvalidInputError(
          `${where} block ${at} has type ${JSON.stringify(type)}: new input may not carry tool calls, tool results or thinking blocks.`,
        );
      }
      if (!allowedInInput.has(type)) {
        throw new InvalidInputError(
          `${where} block ${at} has type ${JSON.stringify(type)}: new input takes text, data and hint blocks.`,
        );
      }
      const checked = contentBlockSchema.safeParse(block);
      if (!checked.success) {
        throw new InvalidInputError(
          `${where} block ${at} is not a valid ${String(type)} block: ${describeZodIssues(checked.error)}.`,
        );
      }
    });
  }
  const copy = structuredClone(message) as Record<string, unknown>;
  for (const [key, field] of Object.entries(copy)) if (field === undefined) delete copy[key];
  copy['id'] ??= newId();
  copy['name'] ??= message.role;
  copy['createdAt'] ??= nowIso();
  // What goes into the context must load again from JSON: check it like a stored message.
  const checked = messageSchema.safeParse(copy);
  if (!checked.success) {
    throw new InvalidInputError(
      `${where} is not a valid message: ${describeZodIssues(checked.error)}.`,
    );
  }
  return checked.data;
}

/** Turns new input into messages for the context (copies; the caller's objects are not kept). */
function toMessages(input: string | Msg | Msg[]): Msg[] {
  if (typeof input === 'string') return [userMsg(input)];
  if (Array.isArray(input)) return input.map((message, index) => checkMessage(message, index));
  return [checkMessage(input, -1)];
}

function parkedError(state: AgentState): AgentParkedError {
  const open = openCallsOf(state);
  const asking = open.filter((call) => call.state === 'asking').length;
  const submitted = open.filter((call) => call.state === 'submitted').length;
  return new AgentParkedError(agentTexts.parkedNoEvent(asking, submitted));
}

/**
 * Decides what an input means for the agent's state, refusing anything that
 * does not fit (SPEC section 1). Pure: the state is not touched.
 */
export function planReply(state: AgentState, toolkit: Toolkit, input: unknown): ReplyPlan {
  const reply = state.reply;
  if (input === undefined || input === null) {
    if (reply?.status === 'parked') throw parkedError(state);
    return reply === null ? { kind: 'new', messages: [] } : { kind: 'continue' };
  }
  if (!looksLikeInputEvent(input)) {
    if (reply?.status === 'parked') throw parkedError(state);
    return { kind: 'new', messages: toMessages(input as string | Msg | Msg[]) };
  }
  const event = takeAdoptedInput(input) ? input : parseInputEvent(input);
  if (event.type === 'USER_INTERRUPT') {
    if (reply === null) return { kind: 'idle_interrupt' };
    if (event.replyId !== reply.replyId) throw new StaleReplyError(event.replyId, reply.replyId);
    return { kind: 'interrupt' };
  }
  if (reply?.status !== 'parked') {
    throw new NotWaitingError(
      event.type === 'USER_CONFIRM_RESULT'
        ? agentTexts.notWaitingConfirm(JSON.stringify(event))
        : agentTexts.notWaitingExternal(JSON.stringify(event)),
    );
  }
  if (event.replyId !== reply.replyId) throw new StaleReplyError(event.replyId, reply.replyId);
  if (event.type === 'USER_CONFIRM_RESULT') {
    checkConfirm(state, event);
    return { kind: 'confirm', event };
  }
  checkExternal(state, toolkit, event);
  return { kind: 'external', event };
}
