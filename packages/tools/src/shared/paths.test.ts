import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionContext } from '@parley/core';
import { temporaryDirectory } from '../../test/context.js';
import { dangerousPathReason, isDeviceWrite } from './dangerous-paths.js';
import { absolutePath, isInside, realPath, workingDirectories } from './paths.js';

let root: { path: string; remove: () => void };
beforeAll(() => {
  root = temporaryDirectory();
  mkdirSync(path.join(root.path, 'inside'));
  mkdirSync(path.join(root.path, 'outside'));
  symlinkSync(path.join(root.path, 'outside'), path.join(root.path, 'inside', 'link'));
});
afterAll(() => root.remove());

describe('paths', () => {
  it('makes paths absolute, expanding ~ and folding ..', () => {
    expect(absolutePath('/a/b', '../c')).toBe('/a/c');
    expect(absolutePath('/a', '~/x', '/home/u')).toBe('/home/u/x');
    expect(absolutePath('/a', '~', '/home/u')).toBe('/home/u');
  });

  it('resolves symlinks through the nearest existing ancestor', () => {
    const through = path.join(root.path, 'inside', 'link', 'not', 'yet.txt');
    expect(realPath(through)).toBe(path.join(root.path, 'outside', 'not', 'yet.txt'));
  });

  it('tells inside from a sibling with the same prefix', () => {
    expect(isInside('/p', '/p')).toBe(true);
    expect(isInside('/p', '/p/x')).toBe(true);
    expect(isInside('/p', '/px')).toBe(false);
    expect(isInside('/', '/x')).toBe(true);
  });

  it('counts the cwd as a working directory', () => {
    const dirs = workingDirectories(
      createPermissionContext({ workingDirectories: ['/tmp/x/../y'] }),
      root.path,
    );
    expect(dirs).toContain(root.path);
    expect(dirs.some((dir) => dir.endsWith('/y'))).toBe(true);
  });
});

describe('dangerous paths', () => {
  it.each([
    '/h/.bashrc',
    '/h/.zshrc',
    '/p/.env',
    '/p/.env.local',
    '/p/.git/config',
    '/p/.GIT/hooks/x',
    '/h/.ssh/id_rsa',
    '/p/.vscode/settings.json',
    '/p/.idea',
    '/h/.npmrc',
    '/h/.gitconfig',
  ])('%s is dangerous', (file) => {
    expect(dangerousPathReason(file)).toBeDefined();
  });

  it.each(['/p/src/index.ts', '/p/environment.ts', '/p/gitignore', '/p/README.md'])(
    '%s is not',
    (file) => {
      expect(dangerousPathReason(file)).toBeUndefined();
    },
  );

  it('knows harmless device sinks from real devices', () => {
    expect(isDeviceWrite('/dev/null')).toBe(false);
    expect(isDeviceWrite('/dev/fd/2')).toBe(false);
    expect(isDeviceWrite('/dev/sda')).toBe(true);
  });
});
