import type { AgentState, ToolCallBlock } from '@parley/core';
import type { SessionRecord } from '../log/session-log.js';

/** A tool call the parked reply waits on, and for what: a confirmation or an external result. */
export type WaitingCall = ToolCallBlock & { awaiting: 'confirm' | 'external' };

/** What a session looks like from outside (HTTP.md's `SessionSummary`). */
export type SessionSummary = {
  id: string;
  owner: string;
  createdAt: string;
  updatedAt: string;
  status: 'idle' | 'running' | 'waiting';
  lastSeq: number;
  waiting: null | { replyId: string; deadline: string | null; toolCalls: WaitingCall[] };
};

/** Whether a value read back from the approvals index is a waiting call. */
export function isWaitingCall(value: unknown): value is WaitingCall {
  if (typeof value !== 'object' || value === null) return false;
  const call: Record<string, unknown> = { ...value };
  return (
    call['type'] === 'tool_call' &&
    typeof call['id'] === 'string' &&
    typeof call['name'] === 'string' &&
    (call['awaiting'] === 'confirm' || call['awaiting'] === 'external')
  );
}

/** The calls a parked reply waits on, in the model's order, read from the stored state. */
export function waitingCallsOf(state: AgentState): WaitingCall[] {
  const reply = state.reply;
  if (reply?.status !== 'parked') return [];
  const message = state.context.find((candidate) => candidate.id === reply.replyId);
  if (message === undefined || typeof message.content === 'string') return [];
  const waiting: WaitingCall[] = [];
  for (const block of message.content) {
    if (block.type !== 'tool_call') continue;
    if (block.state === 'asking') waiting.push({ ...block, awaiting: 'confirm' });
    if (block.state === 'submitted') waiting.push({ ...block, awaiting: 'external' });
  }
  return waiting;
}

/**
 * The summary of a session from its record, its stored state (absent until
 * its first save) and the number of its last event. `updatedAt` is the
 * time of the last message, or the creation time.
 */
export function summarize(
  record: SessionRecord,
  state: AgentState | undefined,
  lastSeq: number,
): SessionSummary {
  const reply = state?.reply ?? null;
  const lastMessage = state?.context.at(-1);
  const status = reply === null ? 'idle' : reply.status === 'parked' ? 'waiting' : 'running';
  return {
    id: record.id,
    owner: record.owner,
    createdAt: record.createdAt,
    updatedAt: lastMessage?.createdAt ?? record.createdAt,
    status,
    lastSeq,
    waiting:
      state === undefined || reply?.status !== 'parked'
        ? null
        : {
            replyId: reply.replyId,
            deadline: reply.deadline ?? null,
            toolCalls: waitingCallsOf(state),
          },
  };
}
