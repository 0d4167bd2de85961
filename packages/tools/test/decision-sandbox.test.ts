import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRule } from '@parley/core';
import { bashThroughAgent, sandboxPolicyOf, type AgentRun } from './agent-run.js';
import { runSandboxTests } from './bubblewrap-ready.js';
import { createSandbox, type Sandbox } from './corpus.js';

// The sandbox's policy follows the decision that let a call run (ADR
// tools-0007): a call allowed unasked in a mode that writes nothing unasked
// runs read-only, whatever a second reading of the line says; a person's
// yes, an allow rule or a mode that writes unasked keep the write policy.

let sandbox: Sandbox;

beforeAll(() => {
  sandbox = createSandbox();
});
afterAll(() => sandbox.remove());

const read = (name: string): string => readFileSync(path.join(sandbox.project, name), 'utf8');

const run = (
  command: string,
  options: Omit<AgentRun, 'project' | 'home'> = {},
): ReturnType<typeof bashThroughAgent> =>
  bashThroughAgent(command, { project: sandbox.project, home: sandbox.home, ...options });

describe.runIf(runSandboxTests)('the sandbox policy follows the decision', () => {
  it.each([
    ['echo pwned 1<notes.txt >/dev/stdout', 'notes.txt'],
    ['echo pwned 2<README.md >>/dev/stderr', 'README.md'],
  ])(
    'default mode: `%s` asks (the device reopens %s), and nothing runs unanswered',
    async (command, file) => {
      const before = read(file);
      const { asked } = await run(command);
      expect(asked).toBe(true);
      expect(read(file)).toBe(before);
    },
    30_000,
  );

  it('default mode, allowed unasked: a line whose only write is to /dev/stdout runs read-only', async () => {
    // (bash cannot reopen /dev/stdout here: the tool's stdout is a socket, ENXIO.)
    const { asked, result } = await run('echo shown >/dev/stdout');
    expect(asked).toBe(false);
    expect(sandboxPolicyOf(result)).toBe('read-only');
  }, 30_000);

  it('a person’s yes to a write still writes', async () => {
    const { asked, result } = await run('echo approved > approved.txt', { confirm: true });
    expect(asked).toBe(true);
    expect(sandboxPolicyOf(result)).toBe('write');
    expect(read('approved.txt')).toBe('approved\n');
  }, 30_000);

  it('an allow rule and a mode that writes unasked still write', async () => {
    const rule: PermissionRule = {
      toolName: 'Bash',
      ruleContent: 'mkdir:*',
      behavior: 'allow',
      source: 'test',
    };
    const byRule = await run('mkdir by-rule', { rules: [rule] });
    expect(byRule.asked).toBe(false);
    expect(sandboxPolicyOf(byRule.result)).toBe('write');
    expect(statSync(path.join(sandbox.project, 'by-rule')).isDirectory()).toBe(true);
  }, 30_000);

  it('accept_edits: a write in the project, allowed by the mode, writes', async () => {
    writeFileSync(path.join(sandbox.project, 'edit.txt'), 'old\n');
    const { asked, result } = await run('echo new > edit.txt', { mode: 'accept_edits' });
    expect(asked).toBe(false);
    expect(sandboxPolicyOf(result)).toBe('write');
    expect(read('edit.txt')).toBe('new\n');
  }, 30_000);
});
