import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine } from '@parley/core';
import type { PermissionMode } from '@parley/core';
import { Bash } from '../src/index.js';
import { createSandbox, loadOrdinaryCorpus, type Sandbox } from './corpus.js';

// The ordinary-command corpus (fixtures/ordinary-corpus.json, issue 31):
// commands coding agents run all day, each harmless (the strace test
// `ordinary-corpus.strace.test.ts` runs them), that must not ask in default
// or explore mode with no rule. A case still asked for is marked
// `knownAsk` with the reason; the false-ask count is printed and may not
// grow past the ceiling.

/** The most commands of the corpus that may still ask in default mode, until the known asks are fixed. */
const CEILING = 14;
const corpus = loadOrdinaryCorpus();
let sandbox: Sandbox;
let bash: Bash;

beforeAll(async () => {
  sandbox = createSandbox();
  bash = new Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  await bash.checkPermissions({ command: 'true' }, new PermissionEngine().context);
});
afterAll(() => sandbox.remove());

async function behaviour(command: string, mode: PermissionMode): Promise<string> {
  const engine = new PermissionEngine({ mode, workingDirectories: [sandbox.project] });
  const decision = await engine.check(bash, { command });
  return `${decision.behavior} (${decision.decisionReason ?? ''})`;
}

describe('the ordinary-command corpus (issue 31)', () => {
  it('holds at least 100 commands across the classes of the issue', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(100);
    expect(new Set(corpus.map((item) => item.class)).size).toBeGreaterThanOrEqual(8);
  });

  it('allows every ordinary command in default and explore mode, but the known asks', async () => {
    const problems: string[] = [];
    let asked = 0;
    for (const item of corpus) {
      for (const mode of ['default', 'explore'] as const) {
        const got = await behaviour(item.command, mode);
        const allowed = got.startsWith('allow');
        if (mode === 'default' && !allowed) asked++;
        if (item.knownAsk === undefined && !allowed)
          problems.push(`${item.command} [${mode}]: ${got}`);
        if (item.knownAsk !== undefined && allowed)
          problems.push(`${item.command} [${mode}]: now allowed, drop its knownAsk`);
      }
    }
    const share = asked / corpus.length;
    console.log(
      `ordinary corpus: ${asked} of ${corpus.length} ask in default mode (${(share * 100).toFixed(1)}%)`,
    );
    expect(problems).toEqual([]);
    expect(asked).toBeLessThanOrEqual(CEILING);
  });
});
