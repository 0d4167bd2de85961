import { describe, expect, it } from 'vitest';
import { OutputLimit } from './output-limit.js';

describe('OutputLimit', () => {
  it('passes everything through within the budget', () => {
    const limit = new OutputLimit(10, 5);
    expect(limit.push('hello')).toBe('hello');
    expect(limit.push('world')).toBe('world');
    expect(limit.finish()).toBe('');
    expect(limit.truncated).toBe(false);
  });

  it('keeps the head and the tail and says how much was cut', () => {
    const limit = new OutputLimit(4, 3);
    expect(limit.push('ab\ncd\nef\ngh')).toBe('ab\nc');
    expect(limit.push('ij')).toBe('');
    expect(limit.truncated).toBe(true);
    expect(limit.total).toBe(13);
    expect(limit.finish()).toBe(
      '\n\n[... output truncated: 6 characters (2 lines) cut ...]\n\nhij',
    );
  });

  it('holds back a short tail until the end without calling it cut', () => {
    const limit = new OutputLimit(2, 10);
    expect(limit.push('abcd')).toBe('ab');
    expect(limit.finish()).toBe('cd');
    expect(limit.truncated).toBe(false);
  });
});
