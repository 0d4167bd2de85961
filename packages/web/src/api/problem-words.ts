import { ApiError } from './client.js';

/**
 * What each problem `code` of the server means to a person. The server's
 * `detail` is written for programs and logs (ids, internal counts); a person
 * reads one of these sentences instead.
 */
const sentences: Record<string, string> = {
  unauthenticated: 'Your token was not accepted. Log in again.',
  forbidden: 'You may not do that in this session.',
  answer_not_allowed: 'You may not answer this call; it waits for someone who may.',
  not_found: 'No such session, or you may not see it.',
  session_not_found: 'No such session, or you may not see it.',
  agent_busy: 'The agent is still working on this session. Wait a moment and try again.',
  agent_parked: 'The agent is waiting for an answer first.',
  session_busy: 'The agent is still working on this session. Wait a moment and try again.',
  stale_reply: 'This was already answered, here or elsewhere.',
  concurrent_resume: 'Someone else answered at the same moment; their answer was taken.',
  stale_session: 'The session changed meanwhile. Try again.',
  reply_expired: 'The question expired before it was answered.',
  not_waiting: 'The agent is no longer waiting for that answer.',
  unknown_tool_call: 'The agent is no longer waiting for that call.',
  invalid_event: 'The answer was not accepted: it does not fit what the agent asked.',
  invalid_tool_result: 'The result was not accepted: it does not fit what the tool expects.',
  invalid_request: 'The request was not accepted.',
  invalid_input: 'The request was not accepted.',
  fixed_rule: 'That rule was set by the operator; it cannot be revoked here.',
  unknown_rule: 'That rule is no longer held by the session.',
  rate_limited: 'Too many requests. Wait a moment and try again.',
  too_many_streams: 'Too many open views of sessions. Close a tab and try again.',
  body_too_large: 'That is too large to send.',
  idempotent_request_running: 'That request is still being handled. Wait a moment.',
  idempotent_request_interrupted:
    'That request was interrupted; look at the session before trying again.',
  idempotency_key_reused: 'That request was already sent with other content.',
  request_timeout: 'The server took too long. Try again.',
  shutting_down: 'The server is restarting. Try again in a moment.',
};

/** A sentence for a person about `error`: the problem's meaning, never its internal detail. */
export function problemInWords(error: unknown): string {
  if (error instanceof ApiError) {
    const known = sentences[error.code];
    if (known !== undefined) return known;
    if (error.status >= 500) return 'The server failed to handle that. Try again.';
    return `That did not work (${error.code.replaceAll('_', ' ')}).`;
  }
  if (error instanceof TypeError) return 'The server could not be reached. Check the connection.';
  return 'That did not work. Try again.';
}
