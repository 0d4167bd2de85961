import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, temporaryDirectory, toolContext } from '../../test/context.js';
import { Glob } from './glob-tool.js';
import { Grep } from './grep-tool.js';

let root: { path: string; remove: () => void };
let project: string;
beforeAll(() => {
  root = temporaryDirectory();
  project = path.join(root.path, 'project');
  const put = (name: string, content: string): void => {
    mkdirSync(path.dirname(path.join(root.path, name)), { recursive: true });
    writeFileSync(path.join(root.path, name), content);
  };
  put('project/src/a.ts', 'const TOKEN_NAME = "x";\n');
  put('project/.env', 'TOKEN=abc\n');
  put('project/.env.example', 'TOKEN=\n');
  put('project/certs/server.pem', 'TOKEN in a key file\n');
  put('project/data/dump.txt', '-----BEGIN RSA PRIVATE KEY-----\nTOKEN\n');
  put('outside/notes.txt', 'TOKEN outside\n');
  symlinkSync(path.join(root.path, 'outside', 'notes.txt'), path.join(project, 'notes-link.txt'));
});
afterAll(() => root.remove());

describe('a directory walk leaves secret files out and says so', () => {
  it('Grep: by name, by private key header and through symlinks out of the tree', async () => {
    const result = await collect(
      new Grep({ cwd: project }).execute({ pattern: 'TOKEN' }, toolContext()),
    );
    expect(result.text.split('\n')).toEqual([
      `${project}/.env.example:1:TOKEN=`,
      `${project}/src/a.ts:1:const TOKEN_NAME = "x";`,
      '(4 files were left out: they may hold secrets, or a symlink leads outside the searched directory. Read asks before reading one.)',
    ]);
    expect(result.metadata).toMatchObject({ leftOut: 4, matches: 2 });
  });

  it('Grep: a file named on purpose is searched (its own read was asked for)', async () => {
    const result = await collect(
      new Grep({ cwd: project }).execute({ pattern: 'TOKEN', path: '.env' }, toolContext()),
    );
    expect(result.text).toBe(`${project}/.env:1:TOKEN=abc`);
  });

  it('Glob: by name and through symlinks out of the tree', async () => {
    const result = await collect(
      new Glob({ cwd: project }).execute({ pattern: '**/*' }, toolContext()),
    );
    expect(result.text.split('\n')).toEqual([
      `${project}/.env.example`,
      `${project}/data/dump.txt`,
      `${project}/src/a.ts`,
      '(3 files were left out: they may hold secrets, or a symlink leads outside the searched directory. Read asks before reading one.)',
    ]);
    expect(result.metadata).toMatchObject({ count: 3, leftOut: 3 });
  });

  it('says nothing when nothing was left out', async () => {
    const result = await collect(
      new Glob({ cwd: project }).execute({ pattern: 'src/*.ts' }, toolContext()),
    );
    expect(result.text).toBe(`${project}/src/a.ts`);
  });
});
