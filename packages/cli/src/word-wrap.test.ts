import { describe, expect, it } from 'vitest';
import { WordWrap } from './word-wrap.js';

function wrapAll(pieces: string[], width: number): string {
  const wrap = new WordWrap(() => width);
  return pieces.map((piece) => wrap.push(piece)).join('') + wrap.end();
}

describe('WordWrap', () => {
  it('breaks between words, whatever the pieces the text arrives in', () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    const whole = wrapAll([text], 12);
    expect(whole).toBe('the quick\nbrown fox\njumps over\nthe lazy dog');
    expect(wrapAll(text.match(/.{1,3}/g) ?? [], 12)).toBe(whole);
  });

  it('keeps the text’s own newlines and indentation', () => {
    expect(wrapAll(['a\n  b'], 20)).toBe('a\n  b');
  });

  it('breaks a word longer than a line', () => {
    expect(wrapAll(['abcdefghijklmnop'], 10)).toBe('abcdefghij\nklmnop');
  });

  it('knows when the line is empty', () => {
    const wrap = new WordWrap(() => 20);
    expect(wrap.atLineStart).toBe(true);
    wrap.push('word');
    expect(wrap.atLineStart).toBe(false);
    expect(wrap.end()).toBe('word');
    wrap.reset();
    expect(wrap.atLineStart).toBe(true);
  });
});
