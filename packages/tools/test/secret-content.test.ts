import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashThroughAgent, sandboxPolicyOf } from './agent-run.js';
import { runSandboxTests } from './bubblewrap-ready.js';
import { createSandbox, type Sandbox } from './corpus.js';

// A private key is masked by its content, whatever its name (ADR tools-0007):
// `grep -r . deploy`, allowed unasked, prints nothing of deploy/key.txt.

const KEY_BODY = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW';
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----\n`;

let sandbox: Sandbox;

beforeAll(() => {
  sandbox = createSandbox();
  mkdirSync(path.join(sandbox.project, 'deploy'));
  writeFileSync(path.join(sandbox.project, 'deploy', 'key.txt'), KEY);
  writeFileSync(path.join(sandbox.project, 'deploy', 'host.txt'), 'deploy.example\n');
});
afterAll(() => sandbox.remove());

describe.runIf(runSandboxTests)('secrets by content', () => {
  it('`grep -r . deploy` prints no key material', async () => {
    const { asked, result } = await bashThroughAgent('grep -r . deploy', {
      project: sandbox.project,
      home: sandbox.home,
    });
    expect(asked).toBe(false);
    expect(sandboxPolicyOf(result)).toBe('read-only');
    const output = JSON.stringify(result?.output);
    expect(output).toContain('deploy.example');
    expect(output).not.toContain(KEY_BODY);
    expect(output).not.toContain('PRIVATE KEY');
  }, 30_000);
});
