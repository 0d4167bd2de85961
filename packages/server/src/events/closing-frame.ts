/**
 * Why an event stream ended with a closing frame: the caller's credentials
 * stopped being valid (`unauthenticated`; the reply goes on), or a retried
 * request's first attempt was interrupted and its events are all there is
 * (`idempotent_request_interrupted`).
 */
export type ClosingReason = 'unauthenticated' | 'idempotent_request_interrupted';

/**
 * What is known of an interrupted request's reply: it reached its end or
 * parked (`ran`), nothing of it was stored (`not_run`), or it stopped part
 * way, so a call it made may or may not have taken effect (`unknown`).
 */
export type InterruptedOutcome = 'ran' | 'not_run' | 'unknown';

/**
 * The last frame of a stream that has something to say about its end. It
 * is sent as `event: STREAM_CLOSED` without an `id`, so it is not an
 * `AgentEvent` of the session and a client's `Last-Event-ID` stays on the
 * last event it got (HTTP.md's frames all carry an `id`; this one never does).
 */
export type ClosingNote = {
  type: 'STREAM_CLOSED';
  reason: ClosingReason;
  detail: string;
  /** For `idempotent_request_interrupted`: what is known of the reply's outcome. */
  outcome?: InterruptedOutcome;
  /** For `idempotent_request_interrupted`: where to read the session as it is now. */
  location?: string;
};

/** The SSE text of `note`: one `STREAM_CLOSED` frame with no `id`. */
export function closingFrame(note: ClosingNote): string {
  return `event: STREAM_CLOSED\ndata: ${JSON.stringify(note)}\n\n`;
}

/** The note of a stream closed because its caller's credentials are no longer valid. */
export const credentialsLost: ClosingNote = {
  type: 'STREAM_CLOSED',
  reason: 'unauthenticated',
  detail:
    'The credentials this stream was opened with are no longer valid (revoked or expired). ' +
    'A reply it was showing goes on; reconnect with valid credentials to follow it.',
};
