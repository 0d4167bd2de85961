import { describe, expect, it } from 'vitest';
import { takeToken } from './token.js';

function place(href: string, stored: Record<string, string> = {}) {
  const storage = new Map(Object.entries(stored));
  const replaced: string[] = [];
  return {
    storage,
    replaced,
    place: {
      location: { href },
      storage: {
        getItem: (key: string) => storage.get(key) ?? null,
        setItem: (key: string, value: string) => void storage.set(key, value),
      },
      replaceUrl: (url: string) => void replaced.push(url),
    },
  };
}

describe('takeToken', () => {
  it('keeps ?token= for the tab and drops it from the address, leaving the rest', () => {
    const {
      place: where,
      storage,
      replaced,
    } = place('http://127.0.0.1:8787/?token=abc&x=1#/approvals');
    expect(takeToken(where)).toBe('abc');
    expect(storage.get('parley.token')).toBe('abc');
    expect(replaced).toEqual(['/?x=1#/approvals']);
  });

  it('reads the kept token back on a later load, and has none otherwise', () => {
    expect(takeToken(place('http://h/#/', { 'parley.token': 'kept' }).place)).toBe('kept');
    expect(takeToken(place('http://h/').place)).toBeNull();
  });
});
