import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../../test/context.js';
import { escapeGlob, matchesFileRule } from './glob-rule.js';

let root: { path: string; remove: () => void };
beforeAll(() => {
  root = temporaryDirectory();
  mkdirSync(path.join(root.path, 'real'));
  symlinkSync(path.join(root.path, 'real'), path.join(root.path, 'alias'));
});
afterAll(() => root.remove());

describe('matchesFileRule', () => {
  it('lets * and ** cross directories, ? match one character, [..] a class', () => {
    expect(matchesFileRule('/p/*', '/p/a/b/c.ts', '/')).toBe(true);
    expect(matchesFileRule('/p/**', '/p/a/b/c.ts', '/')).toBe(true);
    expect(matchesFileRule('/p/*.ts', '/p/a/b/c.ts', '/')).toBe(true);
    expect(matchesFileRule('/p/*.ts', '/p/a/b/c.js', '/')).toBe(false);
    expect(matchesFileRule('/p/?.ts', '/p/c.ts', '/')).toBe(true);
    expect(matchesFileRule('/p/?.ts', '/p/a/c.ts', '/')).toBe(false);
    expect(matchesFileRule('/p/[ab].ts', '/p/b.ts', '/')).toBe(true);
    expect(matchesFileRule('/p/[!ab].ts', '/p/b.ts', '/')).toBe(false);
  });

  it('matches the directory itself with a trailing /**, but not a sibling with the same prefix', () => {
    expect(matchesFileRule('/p/**', '/p', '/')).toBe(true);
    expect(matchesFileRule('/p/**', '/project/x', '/')).toBe(false);
  });

  it('reads relative rules against the cwd and ~ as the home directory', () => {
    expect(matchesFileRule('src/**', '/work/src/a.ts', '/work')).toBe(true);
    expect(matchesFileRule('src/**', '/other/src/a.ts', '/work')).toBe(false);
  });

  it('resolves symlinks in the literal part of the rule', () => {
    const real = path.join(root.path, 'real', 'x.txt');
    expect(matchesFileRule(`${root.path}/alias/**`, real, '/')).toBe(true);
  });

  it('escapes glob characters for literal paths', () => {
    const literal = '/p/[draft] *notes?';
    expect(matchesFileRule(`${escapeGlob(literal)}/**`, `${literal}/a`, '/')).toBe(true);
    expect(matchesFileRule(`${escapeGlob(literal)}/**`, '/p/d x/a', '/')).toBe(false);
  });
});
