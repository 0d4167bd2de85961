import type { Msg } from '../message/index.js';
import type { AgentState } from './types.js';

/** A broken invariant: where (a path into the state) and what is wrong. */
export type StateProblem = { path: (string | number)[]; problem: string };

/**
 * Rules a well-shaped state must also keep for the agent to resume it. They
 * catch states that were edited by hand, spliced from two sessions, or
 * written by a buggy store, before the agent acts on them:
 * - the reply in progress lives in the last message of the context, an
 *   assistant message whose id is the `replyId` (SPEC section 1);
 * - tool call ids are unique within a message (results are matched by id);
 * - every tool call listed as `executing` or `raised` is a call of the reply message.
 */
export function findStateProblems(state: AgentState): StateProblem[] {
  return [...state.context.flatMap(findMessageProblems), ...findReplyProblems(state)];
}

/**
 * The invariants of `findStateProblems` that concern the reply in progress
 * and the last message only. A store that checked each message when it
 * wrote it (with `findMessageProblems`) checks these on load, without a walk
 * over the whole conversation.
 */
export function findReplyProblems(state: AgentState): StateProblem[] {
  const problems: StateProblem[] = [];
  const reply = state.reply;
  if (reply === null) return problems;
  const lastIndex = state.context.length - 1;
  const last = state.context[lastIndex];
  if (last === undefined || last.role !== 'assistant') {
    const found =
      last === undefined ? 'the context is empty' : `the last message is a ${last.role} message`;
    problems.push({
      path: ['reply', 'replyId'],
      problem: `a reply is in progress, so the context must end with its assistant message, but ${found}`,
    });
    return problems;
  }
  if (last.id !== reply.replyId) {
    problems.push({
      path: ['reply', 'replyId'],
      problem: `expected the id of the last message of the context (context.${lastIndex}.id = ${JSON.stringify(last.id)}), received ${JSON.stringify(reply.replyId)}`,
    });
    return problems;
  }
  const calls = new Set(toolCallIds(last));
  reply.executing.forEach((id, index) => {
    if (!calls.has(id)) {
      problems.push({
        path: ['reply', 'executing', index],
        problem: `tool call ${JSON.stringify(id)} is not a tool call of the reply message (context.${lastIndex})`,
      });
    }
  });
  (reply.raised ?? []).forEach((raised, index) => {
    for (const key of ['id', 'by'] as const) {
      if (!calls.has(raised[key])) {
        problems.push({
          path: ['reply', 'raised', index, key],
          problem: `tool call ${JSON.stringify(raised[key])} is not a tool call of the reply message (context.${lastIndex})`,
        });
      }
    }
  });
  return problems;
}

function toolCallIds(message: Msg): string[] {
  if (typeof message.content === 'string') return [];
  return message.content.flatMap((block) => (block.type === 'tool_call' ? [block.id] : []));
}

/**
 * The invariants of one message at `messageIndex` of the context: tool call
 * ids are unique within it.
 */
export function findMessageProblems(message: Msg, messageIndex: number): StateProblem[] {
  if (typeof message.content === 'string') return [];
  const firstAt = new Map<string, number>();
  const problems: StateProblem[] = [];
  message.content.forEach((block, blockIndex) => {
    if (block.type !== 'tool_call') return;
    const earlier = firstAt.get(block.id);
    if (earlier === undefined) {
      firstAt.set(block.id, blockIndex);
      return;
    }
    problems.push({
      path: ['context', messageIndex, 'content', blockIndex, 'id'],
      problem: `duplicate tool call id ${JSON.stringify(block.id)} (also at context.${messageIndex}.content.${earlier}.id)`,
    });
  });
  return problems;
}
