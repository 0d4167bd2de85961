import type { ReplyInput, Sessions } from '@parley/core';
import type { EventFeed } from '../events/event-feed.js';

/**
 * A reply the server started: the number of the last event before it, and
 * `done`, which resolves to the number of its last event once the reply
 * has parked or ended (it never rejects: a failure after the start is an
 * event of the reply or, if the runner threw, `error`).
 */
export type RunningReply = {
  sessionId: string;
  after: number;
  done: Promise<{ lastSeq: number; error: unknown }>;
};

/**
 * Starts a reply of `sessionId` on `sessions`, numbered and stored through
 * `feed`, and resolves once its first event is out. A refusal (a stale
 * reply, a busy session, an answer `mayAnswer` refused) rejects here, before
 * anything is shown to anyone. The reply then runs on its own: whoever
 * asked for it may go away, and it still parks or ends.
 */
export async function startReply(
  sessions: Sessions,
  feed: EventFeed,
  sessionId: string,
  input: ReplyInput | undefined,
  approver: string,
): Promise<RunningReply> {
  const events = feed.record(sessionId, sessions.replyStream(sessionId, input, { approver }));
  const first = await events.next();
  if (first.done === true) {
    // No event at all: nothing to follow.
    return {
      sessionId,
      after: Number.MAX_SAFE_INTEGER,
      done: Promise.resolve({ lastSeq: 0, error: undefined }),
    };
  }
  const after = first.value.seq - 1;
  const done = (async () => {
    let lastSeq = first.value.seq;
    try {
      for (let step = await events.next(); step.done !== true; step = await events.next()) {
        lastSeq = step.value.seq;
      }
      return { lastSeq, error: undefined };
    } catch (error) {
      return { lastSeq, error };
    }
  })();
  return { sessionId, after, done };
}
