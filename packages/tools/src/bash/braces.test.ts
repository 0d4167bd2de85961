import { describe, expect, it } from 'vitest';
import { expandBraces, type Segment } from './braces.js';

const plain = (text: string): Segment[] => [{ text, quoted: false }];
const words = (segments: Segment[]): string[] | undefined =>
  expandBraces(segments)?.map((word) => word.map((segment) => segment.text).join(''));

describe('expandBraces', () => {
  it('expands lists, with preamble, postscript and nesting', () => {
    expect(words(plain('{rm,-rf,/}'))).toEqual(['rm', '-rf', '/']);
    expect(words(plain('src/{a,b}.ts'))).toEqual(['src/a.ts', 'src/b.ts']);
    expect(words(plain('x{,.bak}'))).toEqual(['x', 'x.bak']);
    expect(words(plain('a{b,{c,d}}e'))).toEqual(['abe', 'ace', 'ade']);
    expect(words(plain('{a,b}{1,2}'))).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('expands sequences', () => {
    expect(words(plain('{1..3}'))).toEqual(['1', '2', '3']);
    expect(words(plain('{5..1..2}'))).toEqual(['5', '3', '1']);
    expect(words(plain('{01..03}'))).toEqual(['01', '02', '03']);
    expect(words(plain('{a..c}'))).toEqual(['a', 'b', 'c']);
  });

  it('leaves alone what bash leaves alone', () => {
    expect(words(plain('{}'))).toEqual(['{}']);
    expect(words(plain('{a}'))).toEqual(['{a}']);
    expect(words(plain('{a,b'))).toEqual(['{a,b']);
    expect(words([{ text: '{a,b}', quoted: true }])).toEqual(['{a,b}']);
    expect(
      words([
        { text: '{a', quoted: false },
        { text: ',', quoted: true },
        { text: 'b}', quoted: false },
      ]),
    ).toEqual(['{a,b}']);
  });

  it('refuses expansions too large to analyse', () => {
    expect(expandBraces(plain('{a..z}{a..z}'))).toBeUndefined();
    expect(expandBraces(plain('{1..100000}'))).toBeUndefined();
  });
});
