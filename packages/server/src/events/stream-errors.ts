import { ParleyError } from '@parley/core';

/**
 * The caller already holds as many open event streams as the server allows
 * (`limit: 'principal'`), or the server holds as many as it allows in all
 * (`limit: 'total'`); 429 with `Retry-After: retryAfter` seconds. Nothing
 * the request would have done was started.
 */
export class TooManyStreamsError extends ParleyError {
  readonly limit: 'principal' | 'total';
  readonly retryAfter: number;
  constructor(limit: 'principal' | 'total', max: number, retryAfter: number) {
    super(
      'too_many_streams',
      limit === 'principal'
        ? `You have ${max} event streams open, the most allowed; close one, or retry in ${retryAfter} s.`
        : `The server has ${max} event streams open, the most it allows; retry in ${retryAfter} s.`,
    );
    this.limit = limit;
    this.retryAfter = retryAfter;
  }
}
