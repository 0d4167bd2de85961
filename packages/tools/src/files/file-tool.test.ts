import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine, type PermissionRule } from '@parley/core';
import { temporaryDirectory } from '../../test/context.js';
import { Edit } from './edit-tool.js';
import { Glob } from './glob-tool.js';
import { Read } from './read-tool.js';
import { Write } from './write-tool.js';

let root: { path: string; remove: () => void };
let project: string;
beforeAll(() => {
  root = temporaryDirectory();
  project = path.join(root.path, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(path.join(root.path, 'outside'));
  symlinkSync(path.join(root.path, 'outside'), path.join(project, 'escape'));
});
afterAll(() => root.remove());

const allow = (toolName: string, ruleContent: string): PermissionRule => ({
  toolName,
  ruleContent,
  behavior: 'allow',
  source: 'test',
});

describe('file tool permissions', () => {
  it('match rules on the symlink-resolved path, so a link cannot walk out', () => {
    const write = new Write({ cwd: project });
    expect(write.matchRule(`${project}/**`, { file_path: 'src/a.ts', content: '' })).toBe(true);
    expect(write.matchRule(`${project}/**`, { file_path: 'escape/a.ts', content: '' })).toBe(false);
    expect(write.matchRule(`${project}/**`, { file_path: '../outside/a.ts', content: '' })).toBe(
      false,
    );
    expect(
      write.matchRule(`${root.path}/outside/**`, { file_path: 'escape/new/a.ts', content: '' }),
    ).toBe(true);
  });

  it('suggest {dir}/** for the real directory, which then allows the call', async () => {
    const edit = new Edit({ cwd: project });
    const input = { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' };
    const decision = await new PermissionEngine().check(edit, input);
    expect(decision.behavior).toBe('ask');
    expect(decision.suggestedRules).toEqual([
      {
        toolName: 'Edit',
        ruleContent: `${project}/src/**`,
        behavior: 'allow',
        source: 'suggested',
      },
    ]);
    const after = new PermissionEngine({ allowRules: decision.suggestedRules ?? [] });
    expect((await after.check(edit, input)).behavior).toBe('allow');
  });

  it('allow edits inside the working directories in accept_edits, never dangerous files', async () => {
    const write = new Write({ cwd: project });
    const engine = new PermissionEngine({ mode: 'accept_edits' });
    expect((await engine.check(write, { file_path: 'src/new.ts', content: '' })).behavior).toBe(
      'allow',
    );
    expect((await engine.check(write, { file_path: 'escape/new.ts', content: '' })).behavior).toBe(
      'ask',
    );
    expect(await engine.check(write, { file_path: '.env.local', content: '' })).toMatchObject({
      behavior: 'ask',
      bypassImmune: true,
    });
    const bypass = new PermissionEngine({ mode: 'bypass', allowRules: [allow('Write', '/**')] });
    expect((await bypass.check(write, { file_path: '.git/config', content: '' })).behavior).toBe(
      'ask',
    );
  });

  it('reading tools are allowed in every mode inside the project and deny rules still hold', async () => {
    const read = new Read({ cwd: project });
    const glob = new Glob({ cwd: project });
    expect(
      (await new PermissionEngine({ mode: 'explore' }).check(read, { file_path: 'src/x' }))
        .behavior,
    ).toBe('allow');
    // A symlink out of the project is a read outside the working directories.
    expect(
      (await new PermissionEngine({ mode: 'explore' }).check(read, { file_path: 'escape/x' }))
        .behavior,
    ).toBe('deny');
    expect(
      (await new PermissionEngine({ mode: 'explore' }).check(glob, { pattern: '*' })).behavior,
    ).toBe('allow');
    const deny = new PermissionEngine({
      denyRules: [
        {
          toolName: 'Read',
          ruleContent: `${root.path}/outside/**`,
          behavior: 'deny',
          source: 'test',
        },
      ],
    });
    expect((await deny.check(read, { file_path: 'escape/secret' })).behavior).toBe('deny');
    const denyGlob = new PermissionEngine({
      denyRules: [
        {
          toolName: 'Glob',
          ruleContent: `${root.path}/outside/**`,
          behavior: 'deny',
          source: 'test',
        },
      ],
    });
    expect((await denyGlob.check(glob, { pattern: `${root.path}/outside/**` })).behavior).toBe(
      'deny',
    );
    expect((await denyGlob.check(glob, { pattern: '../outside/*.txt' })).behavior).toBe('deny');
    expect((await denyGlob.check(glob, { pattern: 'escape/**' })).behavior).toBe('deny');
    expect((await denyGlob.check(glob, { pattern: 'src/**/*.ts' })).behavior).toBe('allow');
  });
});
