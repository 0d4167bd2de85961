import { describe, expect, it } from 'vitest';
import { codeForStatus, isRetryableStatus, retryAfterMs } from './errors.js';

describe('status rules', () => {
  it.each([
    [400, false, 'model_bad_request'],
    [401, false, 'model_unauthorized'],
    [403, false, 'model_unauthorized'],
    [404, false, 'model_not_found'],
    [408, true, 'model_timeout'],
    [409, true, 'model_conflict'],
    [422, false, 'model_bad_request'],
    [429, true, 'model_rate_limited'],
    [500, true, 'model_server_error'],
    [529, true, 'model_server_error'],
  ])('%i: retryable %s, code %s', (status, retryable, code) => {
    expect(isRetryableStatus(status)).toBe(retryable);
    expect(codeForStatus(status)).toBe(code);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, then retry-after seconds, then an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '120', 'retry-after': '9' }))).toBe(120);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }))).toBe(1500);
    const now = Date.parse('2025-06-01T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 01 Jun 2025 10:00:03 GMT' }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
