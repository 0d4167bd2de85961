import { findPermissionAsk } from '@parley/core';
import type { AgentState, PermissionAsk, ToolCallBlock } from '@parley/core';

/** A tool call the parked reply waits on, and what the person must do for it. */
export type WaitingCall = {
  kind: 'confirm' | 'external';
  replyId: string;
  toolCall: ToolCallBlock;
  /** Why a confirmation asks, as the agent kept it in the reply message. */
  ask?: PermissionAsk;
};

/**
 * The tool calls a parked reply is waiting on, in the model's order: calls
 * asking for confirmation and calls submitted for external execution. Read
 * from the state, not from events, so a session reopened from disk shows the
 * same prompts the stream had shown.
 */
export function waitingCalls(state: AgentState): WaitingCall[] {
  const reply = state.reply;
  if (reply?.status !== 'parked') return [];
  const message = state.context.find((candidate) => candidate.id === reply.replyId);
  if (message === undefined || typeof message.content === 'string') return [];
  const waiting: WaitingCall[] = [];
  for (const block of message.content) {
    if (block.type !== 'tool_call') continue;
    if (block.state === 'asking') {
      const ask = findPermissionAsk(message, block.id);
      waiting.push({
        kind: 'confirm',
        replyId: reply.replyId,
        toolCall: block,
        ...(ask === undefined ? {} : { ask }),
      });
    }
    if (block.state === 'submitted')
      waiting.push({ kind: 'external', replyId: reply.replyId, toolCall: block });
  }
  return waiting;
}
