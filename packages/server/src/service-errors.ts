import { ParleyError } from '@parley/core';

/**
 * A request that is not a stream took longer than the server's
 * `requestTimeoutMs` (503). What it started goes on: a reply keeps running
 * and can be followed on `GET /v1/sessions/:id/events`.
 */
export class RequestTimeoutError extends ParleyError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(
      'request_timeout',
      `The request took longer than ${timeoutMs} ms. A reply it started goes on: ` +
        'follow it on GET /v1/sessions/{id}/events.',
    );
    this.timeoutMs = timeoutMs;
  }
}

/** The server is shutting down and takes no new requests (503); another node, or a retry later, may. */
export class ShuttingDownError extends ParleyError {
  constructor() {
    super('shutting_down', 'The server is shutting down.');
  }
}
