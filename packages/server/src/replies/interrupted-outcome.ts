import type { ClosingNote, InterruptedOutcome } from '../events/closing-frame.js';
import { outcomeText } from '../errors.js';
import type { SessionLog } from '../log/session-log.js';

/** The events a reply rests on: it ended, or it parked for an answer. */
const restingTypes = new Set(['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION']);

/**
 * What is known of an interrupted request's reply of `sessionId`, from its
 * stored events numbered above `after` up to `lastSeq`: none (`not_run`),
 * a last one it rests on (`ran`), or a last one part way (`unknown`: a
 * call it made may or may not have taken effect).
 */
export async function interruptedOutcome(
  log: SessionLog,
  sessionId: string,
  after: number,
  lastSeq: number,
): Promise<InterruptedOutcome> {
  if (lastSeq <= after) return 'not_run';
  const [last] = await log.events(sessionId, lastSeq - 1, 1);
  return last !== undefined && restingTypes.has(last.type) ? 'ran' : 'unknown';
}

/**
 * The closing note of a retry's stream that replayed an interrupted
 * request's events: it was interrupted, what is known of its outcome, and
 * where to read the session as it is now.
 */
export function interruptedNote(sessionId: string, outcome: InterruptedOutcome): ClosingNote {
  return {
    type: 'STREAM_CLOSED',
    reason: 'idempotent_request_interrupted',
    detail: `The request was interrupted after its reply started, and is not run again; its outcome: ${outcomeText[outcome]}`,
    outcome,
    location: `/v1/sessions/${encodeURIComponent(sessionId)}`,
  };
}
