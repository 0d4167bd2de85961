import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.js';

/** How deeply `value` nests arrays and objects, counted on the parsed value. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) {
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  }
  return 0;
}

describe('nestsDeeperThan', () => {
  it('counts brackets outside strings only, escapes included', () => {
    const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(nestsDeeperThan(deep(64), 64)).toBe(false);
    expect(nestsDeeperThan(deep(65), 64)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[[[[', b: '\\"[[[[' }), 2)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: 'x\\', b: [[[]]] }), 3)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(nestsDeeperThan('{"unterminated": "[[[[', 1)).toBe(false);
  });

  it('agrees with the depth of the parsed value, for any JSON', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 12, stringUnit: 'binary' }),
        fc.integer({ min: 1, max: 12 }),
        (value, max) => {
          expect(nestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
