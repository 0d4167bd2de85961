import { ParleyError } from '@parley/core';
import type { InterruptedOutcome } from './events/closing-frame.js';

/**
 * The request carried no credentials, or ones the authenticator did not
 * accept (401); `credentialsGiven` tells the two apart for the
 * `WWW-Authenticate` header (`error="invalid_token"` only for the second).
 */
export class UnauthenticatedError extends ParleyError {
  readonly credentialsGiven: boolean;
  constructor(credentialsGiven = false) {
    super('unauthenticated', 'Missing or invalid credentials.');
    this.credentialsGiven = credentialsGiven;
  }
}

/**
 * The session does not exist, or the caller may not see it (404). The two
 * are told apart nowhere, so a caller cannot probe for other owners' sessions.
 */
export class SessionNotFoundError extends ParleyError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super('session_not_found', `No session '${sessionId}'.`);
    this.sessionId = sessionId;
  }
}

/** The caller may see the session but not do this with it, e.g. an approver sending a message (403). */
export class ForbiddenError extends ParleyError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** The request body is not JSON, or does not fit the route's schema; `path` names the bad field (400). */
export class InvalidRequestError extends ParleyError {
  readonly path: string;
  constructor(path: string, message: string) {
    super('invalid_request', message);
    this.path = path;
  }
}

/** The request body is longer than the server's limit (413). */
export class BodyTooLargeError extends ParleyError {
  readonly limit: number;
  constructor(limit: number) {
    super('body_too_large', `The request body is over the limit of ${limit} bytes.`);
    this.limit = limit;
  }
}

/**
 * An `Idempotency-Key` was used again with a different request (422), or
 * while the first request with it is still running (409, `inProgress`,
 * with `Retry-After` until `heldUntil`, the time in ms its claim is held
 * to when known, else 1 s).
 */
export class IdempotencyKeyError extends ParleyError {
  readonly key: string;
  readonly inProgress: boolean;
  readonly heldUntil: number | undefined;
  constructor(key: string, inProgress: boolean, heldUntil?: number) {
    super(
      inProgress ? 'idempotent_request_running' : 'idempotency_key_reused',
      inProgress
        ? `The request with Idempotency-Key '${key}' is still running; retry when it is over.`
        : `Idempotency-Key '${key}' was used for a different request.`,
    );
    this.key = key;
    this.inProgress = inProgress;
    this.heldUntil = heldUntil;
  }
}

/**
 * The first request with an `Idempotency-Key` was interrupted: the process
 * running its reply stopped after the reply had started (409). It is not
 * run again; its events are those numbered above `after` that were stored
 * (a retry asking for `text/event-stream` gets them). `outcome` is what is
 * known of the reply: it reached its end or parked (`ran`), nothing of it
 * was stored (`not_run`), or it stopped part way (`unknown`); the session
 * (`GET /v1/sessions/{id}`) shows where it stands.
 */
export class IdempotentRequestInterruptedError extends ParleyError {
  readonly key: string;
  readonly after: number;
  readonly outcome: InterruptedOutcome;
  constructor(key: string, after: number, outcome: InterruptedOutcome) {
    super(
      'idempotent_request_interrupted',
      `The request with Idempotency-Key '${key}' was interrupted after its reply started, and is not run again; ` +
        `its events are those after number ${after}; its outcome: ${outcomeText[outcome]}`,
    );
    this.key = key;
    this.after = after;
    this.outcome = outcome;
  }
}

/** What each outcome of an interrupted request means, in words. */
export const outcomeText: Record<InterruptedOutcome, string> = {
  ran: 'ran (its reply reached its end or parked; read the session for where it stands).',
  not_run: 'not run (nothing of its reply was stored; send it again with a new key).',
  unknown: 'unknown (its reply stopped part way; read the session before sending anything again).',
};

/**
 * An append gave an event a number its session already has: another
 * process recorded that session's events in between (server-0002, "the
 * numbering window"). Nothing of the append is stored; the events already
 * stored under those numbers are kept.
 */
export class EventNumberTakenError extends ParleyError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super(
      'event_number_taken',
      `Another process stored events of session '${sessionId}' under the same numbers; nothing was appended.`,
    );
    this.sessionId = sessionId;
  }
}

/** The principal sent more requests than the rate limit allows; `retryAfter` is in seconds (429). */
export class RateLimitedError extends ParleyError {
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super('rate_limited', `Too many requests; retry in ${retryAfter} s.`);
    this.retryAfter = retryAfter;
  }
}
