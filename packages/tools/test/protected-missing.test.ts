import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashThroughAgent, sandboxPolicyOf } from './agent-run.js';
import { runSandboxTests } from './bubblewrap-ready.js';
import { createSandbox, type Sandbox } from './corpus.js';

// A protected path that does not exist yet stays uncreatable, bypass
// included (ADR tools-0007): in bypass the home is sealed, so a link in the
// project to a missing `~/.bash_profile` cannot make it.

let sandbox: Sandbox;

beforeAll(() => {
  sandbox = createSandbox();
  symlinkSync(path.join(sandbox.home, '.bash_profile'), path.join(sandbox.project, 'profile-link'));
  symlinkSync(path.join(sandbox.home, '.npmrc'), path.join(sandbox.project, 'npmrc-link'));
  writeFileSync(path.join(sandbox.home, 'notes.txt'), 'a\n');
});
afterAll(() => sandbox.remove());

describe.runIf(runSandboxTests)('protected paths that do not exist yet', () => {
  it('bypass: `echo x >> profile-link` does not create ~/.bash_profile', async () => {
    const { asked, result } = await bashThroughAgent(
      'echo x >> profile-link; echo x > npmrc-link',
      {
        project: sandbox.project,
        home: sandbox.home,
        mode: 'bypass',
      },
    );
    expect(asked).toBe(false);
    expect(sandboxPolicyOf(result)).toBe('bypass');
    expect(existsSync(path.join(sandbox.home, '.bash_profile'))).toBe(false);
    expect(existsSync(path.join(sandbox.home, '.npmrc'))).toBe(false);
  }, 30_000);

  it('bypass: what the home holds stays writable, and so does the project', async () => {
    await bashThroughAgent('echo b >> ~/notes.txt; echo c > new.txt', {
      project: sandbox.project,
      home: sandbox.home,
      mode: 'bypass',
    });
    expect(readFileSync(path.join(sandbox.home, 'notes.txt'), 'utf8')).toBe('a\nb\n');
    expect(readFileSync(path.join(sandbox.project, 'new.txt'), 'utf8')).toBe('c\n');
  }, 30_000);
});
