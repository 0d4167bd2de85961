import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors/index.js';
import type { CachedSession } from './session-cache.js';
import { SessionCache, cachedBytes } from './session-cache.js';

const entry = (version: number, bytes: number): CachedSession => ({
  version,
  head: '{}',
  count: 0,
  lastText: undefined,
  texts: [],
  messages: [],
  bytes,
});

describe('SessionCache', () => {
  it('evicts the least recently used entries to stay within its bound', () => {
    const cache = new SessionCache(100);
    cache.set('a', entry(1, 40));
    cache.set('b', entry(1, 40));
    expect(cache.get('a')?.version).toBe(1); // a is now the most recent
    cache.set('c', entry(1, 40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.version).toBe(1);
    expect(cache.get('c')?.version).toBe(1);
    expect(cache.bytes).toBe(80);
  });

  it('keeps nothing bigger than its bound, and nothing at all with a bound of 0', () => {
    const cache = new SessionCache(100);
    cache.set('big', entry(1, 101));
    expect(cache.get('big')).toBeUndefined();
    const none = new SessionCache(0);
    none.set('a', entry(1, 1));
    expect(none.get('a')).toBeUndefined();
    expect(none.bytes).toBe(0);
  });

  it('keeps a later version over an earlier one that arrives after it', () => {
    const cache = new SessionCache(100);
    cache.set('a', entry(3, 10));
    cache.set('a', entry(2, 10));
    expect(cache.get('a')?.version).toBe(3);
    cache.set('a', entry(4, 20));
    expect(cache.get('a')?.version).toBe(4);
    expect(cache.bytes).toBe(20);
  });

  it('refuses a bound that is no number of bytes', () => {
    for (const bound of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new SessionCache(bound)).toThrow(InvalidInputError);
    }
  });

  it('counts an entry by the characters it holds', () => {
    expect(cachedBytes('ab', ['cde', 'f'])).toBe(6 * 3);
  });
});
