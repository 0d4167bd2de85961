import type { AgentState, SessionStore } from '@parley/core';
import type { Approval, WaitingRefresh } from '../log/session-log.js';
import { waitingCallsOf } from './session-summary.js';

/** What a session waits on in `state`, as the approvals index keeps it (nothing unless parked). */
export function approvalsOf(sessionId: string, state: AgentState | undefined): Approval[] {
  const reply = state?.reply;
  if (state === undefined || reply?.status !== 'parked') return [];
  return waitingCallsOf(state).map((toolCall) => ({
    sessionId,
    replyId: reply.replyId,
    deadline: reply.deadline ?? null,
    toolCall,
  }));
}

/**
 * A state this process saved: the version the save made, what the state
 * waits on, and whether an append of the reply's events already put that
 * in the approvals index (`indexed`).
 */
export type SavedWaiting = WaitingRefresh & { indexed: boolean };

/** Where an event feed finds the approvals index refresh to commit with a reply's last events. */
export interface WaitingSource {
  /** The refresh the last save of `sessionId` calls for, unless an append made it already. */
  pending(sessionId: string): WaitingRefresh | undefined;
  /** Notes that `refresh` (as `pending` gave it) is in the index, unless a later save came since. */
  indexed(sessionId: string, refresh: WaitingRefresh): void;
}

/** Sessions whose last save is remembered at most: a session left out is read back instead. */
const LIMIT = 10_000;

/**
 * What the last state this process saved of each session waits on, and
 * its version, kept until the approvals index takes it. The index is then
 * refreshed from the state the reply saved, without reading it back; a
 * later save elsewhere has a later version, which the index keeps.
 */
export class SavedWaits implements WaitingSource {
  private readonly saved = new Map<string, SavedWaiting>();

  /** `store`, its saves noted here once they succeed. */
  observe(store: SessionStore): SessionStore {
    return {
      load: (sessionId) => store.load(sessionId),
      save: async (sessionId, state, expectedVersion, options) => {
        // Read now: the caller may change its state once the save is under way.
        const approvals = approvalsOf(sessionId, state);
        const version = await store.save(sessionId, state, expectedVersion, options);
        this.record(sessionId, { version, approvals, indexed: false });
        return version;
      },
      ...(store.listAudit === undefined ? {} : { listAudit: store.listAudit.bind(store) }),
      ...(store.listDue === undefined ? {} : { listDue: store.listDue.bind(store) }),
      ...(store.renewLease === undefined ? {} : { renewLease: store.renewLease.bind(store) }),
    };
  }

  pending(sessionId: string): WaitingRefresh | undefined {
    const saved = this.saved.get(sessionId);
    return saved === undefined || saved.indexed ? undefined : saved;
  }

  indexed(sessionId: string, refresh: WaitingRefresh): void {
    const saved = this.saved.get(sessionId);
    if (saved === refresh) saved.indexed = true;
  }

  /** The last save of `sessionId` noted and not yet taken, forgotten once taken. */
  take(sessionId: string): SavedWaiting | undefined {
    const saved = this.saved.get(sessionId);
    this.saved.delete(sessionId);
    return saved;
  }

  private record(sessionId: string, saved: SavedWaiting): void {
    this.saved.delete(sessionId);
    this.saved.set(sessionId, saved);
    if (this.saved.size > LIMIT) {
      const oldest = this.saved.keys().next();
      if (oldest.done !== true) this.saved.delete(oldest.value);
    }
  }
}
