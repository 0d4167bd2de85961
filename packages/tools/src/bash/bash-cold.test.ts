import { describe, expect, it } from 'vitest';
import { createPermissionContext } from '@parley/core';
import { Bash } from './bash-tool.js';

// This file must not load the grammar before these checks: vitest gives each
// test file its own module graph, so the parser starts cold here.
describe('Bash before the grammar has loaded', () => {
  const bash = new Bash();

  it('reads a plain single command exactly', () => {
    expect(bash.isReadOnly({ command: 'git status' })).toBe(true);
    expect(bash.matchRule('npm run:*', { command: 'npm run build' })).toBe(true);
    expect(bash.matchRule('npm run:*', { command: 'npm publish' })).toBe(false);
  });

  it('never calls anything else read-only', () => {
    expect(bash.isReadOnly({ command: 'ls | wc -l' })).toBe(false);
    expect(bash.isReadOnly({ command: "cat 'a b'" })).toBe(false);
  });

  it('errs towards matching, so deny and ask rules hold', () => {
    expect(bash.matchRule('rm:*', { command: 'ls; rm -rf x' })).toBe(true);
    expect(bash.matchRule('rm:*', { command: 'ls && /bin/rm x' })).toBe(true);
    expect(bash.matchRule('rm:*', { command: 'echo $(FOO=1 "rm" x)' })).toBe(true);
  });

  it('decides exactly once checkPermissions has waited for the grammar', async () => {
    const decision = await bash.checkPermissions(
      { command: 'ls | wc -l' },
      createPermissionContext(),
    );
    expect(decision.behavior).toBe('allow');
    expect(bash.isReadOnly({ command: 'ls | wc -l' })).toBe(true);
    expect(bash.matchRule('rm:*', { command: 'ls; rm -rf x' })).toBe(false);
  });
});
