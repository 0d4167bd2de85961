import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine } from '@parley/core';
import { Bash } from '../src/index.js';
import { runSandboxTests } from './bubblewrap-ready.js';
import { collect, toolContext } from './context.js';
import { createSandbox, loadCorpus, type Sandbox } from './corpus.js';
import { GIT_ENV, readCorpusCommands } from './sandbox-fixtures.js';

// The ordinary commands of the corpora (the permission corpus's `control`
// class and the read corpus's allowed Bash reads) give the same output in
// the sandbox as bare (ADR tools-0007). The exceptions are the sandbox's
// own doing, each with why.
const DIFFERENT: Record<string, string> = {
  'ps aux': 'own PID namespace: only its own processes',
  'ls -la': 'the masked .env lists as an empty read-only file',
  'df -h .': 'the file system shown is the bind mount',
};

function ordinaryCommands(): string[] {
  const control = loadCorpus()
    .bash.filter((entry) => entry.class === 'control' && entry.expect === 'allow')
    .map((entry) => entry.command);
  return [...new Set([...control, ...readCorpusCommands('allow')])];
}

let sandbox: Sandbox;
let engine: PermissionEngine;
let tools: { sandboxed: Bash; bare: Bash };

beforeAll(async () => {
  sandbox = createSandbox();
  // A real repository, so the git commands of the corpus have something to show.
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', sandbox.project, ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...GIT_ENV },
    });
  git('init', '-q', '-b', 'main');
  git('add', 'README.md', 'notes.txt', 'src');
  git('commit', '-q', '-m', 'first');
  const options = { cwd: sandbox.project, env: { HOME: sandbox.home, TZ: 'UTC' } };
  tools = {
    sandboxed: new Bash({ ...options, sandbox: 'required' }),
    bare: new Bash({ ...options, sandbox: 'off' }),
  };
  engine = new PermissionEngine({ workingDirectories: [sandbox.project] });
  await engine.check(tools.sandboxed, { command: 'true' });
}, 30_000);
afterAll(() => sandbox.remove());

describe.runIf(runSandboxTests)('the ordinary command corpus in the sandbox', () => {
  it('gives the same output as bare, for every allowed command', async () => {
    const commands = ordinaryCommands().map((command) => sandbox.place(command));
    expect(commands.length).toBeGreaterThan(80);
    const differences: string[] = [];
    let ran = 0;
    for (const command of commands) {
      const decision = await engine.check(tools.sandboxed, { command });
      if (decision.behavior !== 'allow') continue;
      ran++;
      const sandboxed = await collect(tools.sandboxed.execute({ command }, toolContext()));
      const bare = await collect(tools.bare.execute({ command }, toolContext()));
      expect(sandboxed.metadata).toMatchObject({ sandbox: { kind: 'bubblewrap' } });
      const same = sandboxed.text === bare.text && sandboxed.state === bare.state;
      if (!same && DIFFERENT[command] === undefined) {
        differences.push(`${command}\n--- sandboxed\n${sandboxed.text}\n--- bare\n${bare.text}`);
      }
      if (DIFFERENT[command] !== undefined) expect(same, command).toBe(false);
    }
    expect(ran).toBeGreaterThan(80);
    expect(differences).toEqual([]);
  }, 120_000);
});
