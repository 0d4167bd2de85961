import { ParleyError, SessionBusyError } from '@parley/core';
import type { InterruptedOutcome } from '../events/closing-frame.js';
import {
  BodyTooLargeError,
  IdempotencyKeyError,
  IdempotentRequestInterruptedError,
  RateLimitedError,
  UnauthenticatedError,
} from '../errors.js';
import { ShuttingDownError } from '../service-errors.js';
import { TooManyStreamsError } from '../events/stream-errors.js';

/**
 * The body of every error response (RFC 9457, `application/problem+json`):
 * `code` is the `ParleyError` code, stable for programs to branch on.
 * `outcome`, an extension member, only on `idempotent_request_interrupted`:
 * what is known of the interrupted reply.
 */
export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  outcome?: InterruptedOutcome;
};

/** An error response before it is sent: its problem and extra headers (e.g. `Retry-After`). */
export type ProblemResponse = { problem: Problem; headers: Record<string, string> };

/** HTTP status for each `ParleyError` code the routes can meet; the rest are 500. */
const statusOfCode: Record<string, number> = {
  invalid_request: 400,
  invalid_event: 400,
  invalid_input: 400,
  invalid_tool_result: 400,
  unknown_tool_call: 400,
  not_waiting: 400,
  unauthenticated: 401,
  forbidden: 403,
  answer_not_allowed: 403,
  fixed_rule: 403,
  session_not_found: 404,
  unknown_rule: 404,
  stale_reply: 409,
  concurrent_resume: 409,
  stale_session: 409,
  session_busy: 409,
  agent_busy: 409,
  agent_parked: 409,
  idempotent_request_running: 409,
  idempotent_request_interrupted: 409,
  event_number_taken: 409,
  reply_expired: 410,
  body_too_large: 413,
  idempotency_key_reused: 422,
  rate_limited: 429,
  too_many_streams: 429,
  request_timeout: 503,
  shutting_down: 503,
};

const titleOfStatus: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Seconds until an ISO time, at least 1: what `Retry-After` says for a busy session. */
function secondsUntil(time: string, now: Date): number {
  return Math.max(1, Math.ceil((Date.parse(time) - now.getTime()) / 1000));
}

/**
 * The problem response for an error a route threw. A `ParleyError` keeps its
 * code and message; anything else is an internal error whose message is not
 * shown (it may name files or queries).
 */
export function problemFor(error: unknown, now: Date = new Date()): ProblemResponse {
  if (!(error instanceof ParleyError)) {
    return {
      problem: problemOf(500, 'internal', 'The server failed to handle the request.'),
      headers: {},
    };
  }
  const status = statusOfCode[error.code] ?? 500;
  const headers: Record<string, string> = {};
  if (error instanceof SessionBusyError) {
    headers['Retry-After'] =
      error.leaseUntil === undefined ? '1' : String(secondsUntil(error.leaseUntil, now));
  }
  if (error instanceof RateLimitedError || error instanceof TooManyStreamsError) {
    headers['Retry-After'] = String(error.retryAfter);
  }
  if (error instanceof IdempotencyKeyError && error.inProgress) {
    headers['Retry-After'] =
      error.heldUntil === undefined
        ? '1'
        : String(Math.max(1, Math.ceil((error.heldUntil - now.getTime()) / 1000)));
  }
  // RFC 9110 and RFC 6750: a 401 names its scheme, and says when the token was refused.
  if (error instanceof UnauthenticatedError) {
    headers['WWW-Authenticate'] = error.credentialsGiven
      ? 'Bearer error="invalid_token", error_description="Missing or invalid credentials."'
      : 'Bearer';
  }
  // The rest of an oversized body is not read: the connection cannot carry another request.
  if (error instanceof BodyTooLargeError) headers['Connection'] = 'close';
  // A node that is stopping lets go of the connection: the retry goes elsewhere.
  if (error instanceof ShuttingDownError) {
    headers['Connection'] = 'close';
    headers['Retry-After'] = '1';
  }
  const detail = status === 500 ? 'The server failed to handle the request.' : error.message;
  const problem = problemOf(status, error.code, detail);
  if (error instanceof IdempotentRequestInterruptedError) problem.outcome = error.outcome;
  return { problem, headers };
}

/** A problem of `status` with `code` and `detail`. */
export function problemOf(status: number, code: string, detail: string): Problem {
  return {
    type: `https://parley.dev/problems/${code}`,
    title: titleOfStatus[status] ?? 'Error',
    status,
    detail,
    code,
  };
}

/** The problem as a `Response`. */
export function problemResponse({ problem, headers }: ProblemResponse): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });
}
