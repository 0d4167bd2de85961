import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, temporaryDirectory, toolContext } from '../../test/context.js';
import { GitignoreMatcher } from './gitignore.js';
import { Glob } from './glob-tool.js';
import { Grep } from './grep-tool.js';

let root: { path: string; remove: () => void };
beforeAll(() => {
  root = temporaryDirectory();
  const put = (name: string, content: string): void => {
    mkdirSync(path.dirname(path.join(root.path, name)), { recursive: true });
    writeFileSync(path.join(root.path, name), content);
  };
  mkdirSync(path.join(root.path, '.git'));
  put('.gitignore', 'dist/\n*.log\n!keep.log\n');
  put('src/a.ts', 'export function alpha() {}\n// TODO one\n');
  put('src/b.ts', 'export const beta = 1;\n');
  put('src/lib/.gitignore', 'generated.ts\n');
  put('src/lib/generated.ts', 'export function hidden() {}\n');
  put('src/lib/c.tsx', 'export function Gamma() {}\n');
  put('dist/out.ts', 'export function built() {}\n');
  put('debug.log', 'TODO in a log\n');
  put('keep.log', 'TODO kept\n');
  put('.github/ci.yml', 'name: ci # TODO\n');
  put('.git/HEAD', 'TODO not searched\n');
  put('bin.dat', 'TODO\u0000binary');
});
afterAll(() => root.remove());

describe('GitignoreMatcher', () => {
  it('applies nested .gitignore files and re-inclusion like git', () => {
    const matcher = GitignoreMatcher.for(path.join(root.path, 'src'));
    const at = (name: string): string => path.join(root.path, name);
    expect(matcher.ignores(at('dist/out.ts'))).toBe(true);
    expect(matcher.ignores(at('debug.log'))).toBe(true);
    expect(matcher.ignores(at('keep.log'))).toBe(false);
    expect(matcher.ignores(at('src/lib/generated.ts'))).toBe(true);
    expect(matcher.ignores(at('src/lib/c.tsx'))).toBe(false);
  });
});

describe('Glob', () => {
  it('lists matching files, absolute and sorted, without ignored ones', async () => {
    const glob = new Glob({ cwd: root.path });
    const result = await collect(glob.execute({ pattern: '**/*.ts' }, toolContext()));
    expect(result.text.split('\n')).toEqual([
      path.join(root.path, 'src/a.ts'),
      path.join(root.path, 'src/b.ts'),
    ]);
  });

  it('searches under a given path and finds dot directories', async () => {
    const glob = new Glob({ cwd: '/' });
    expect(
      (await collect(glob.execute({ pattern: '**/*.yml', path: root.path }, toolContext()))).text,
    ).toBe(path.join(root.path, '.github/ci.yml'));
    expect(
      (await collect(glob.execute({ pattern: '*.none', path: root.path }, toolContext()))).text,
    ).toBe('No files found.');
  });
});

describe('Grep', () => {
  const grep = (input: { pattern: string; path?: string; glob?: string; ignore_case?: boolean }) =>
    collect(new Grep({ cwd: root.path }).execute(input, toolContext()));

  it('finds matching lines as path:line:text, skipping ignored, .git and binary files', async () => {
    const result = await grep({ pattern: 'TODO' });
    expect(result.text.split('\n')).toEqual([
      `${path.join(root.path, '.github/ci.yml')}:1:name: ci # TODO`,
      `${path.join(root.path, 'keep.log')}:1:TODO kept`,
      `${path.join(root.path, 'src/a.ts')}:2:// TODO one`,
    ]);
  });

  it('filters by glob at any depth, ignores case on request, and searches one file', async () => {
    expect((await grep({ pattern: 'FUNCTION', glob: '*.tsx', ignore_case: true })).text).toBe(
      `${path.join(root.path, 'src/lib/c.tsx')}:1:export function Gamma() {}`,
    );
    expect((await grep({ pattern: 'beta', path: 'src/b.ts' })).text).toContain(
      'src/b.ts:1:export const beta',
    );
    expect((await grep({ pattern: 'nothing-here' })).text).toBe('No matches found.');
  });

  it('stops at the match limit with a note', async () => {
    writeFileSync(path.join(root.path, 'many.txt'), 'hit\n'.repeat(250));
    const result = await grep({ pattern: '^hit$', glob: 'many.txt' });
    expect(result.metadata).toMatchObject({ matches: 200, truncated: true });
    expect(result.text).toMatch(/Stopped at 200 matches/);
  });

  it('rejects an invalid regular expression, and a glob leaving the path, clearly', async () => {
    await expect(grep({ pattern: '(' })).rejects.toMatchObject({ code: 'invalid_pattern' });
    await expect(grep({ pattern: 'x', glob: '../*' })).rejects.toMatchObject({
      code: 'invalid_pattern',
    });
    await expect(grep({ pattern: 'x', glob: '/etc/*' })).rejects.toMatchObject({
      code: 'invalid_pattern',
    });
  });
});
