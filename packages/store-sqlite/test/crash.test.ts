// Crash safety in the suite: a smaller run of bench/crash-sessions.ts (60
// round trips instead of 1,000), whose worker process is killed with
// SIGKILL at random moments and restarted. The script checks the file the
// killed processes left and reports counts; here they must all be clean.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const report = z.object({
  roundTrips: z.number(),
  kills: z.number(),
  executions: z.number(),
  closedAsOutcomeUnknown: z.number(),
  doubleRuns: z.number(),
  primaryKeyViolations: z.number(),
  lostConfirmations: z.number(),
  runsWithoutConfirmation: z.number(),
  loadFailures: z.number(),
  ok: z.boolean(),
});

function runScript(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@parley/source', '--import', 'tsx', 'bench/crash-sessions.ts', ...args],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', () => resolve(output));
  });
}

describe('crash safety under SIGKILL (SQLite)', () => {
  it('loses no confirmed decision and runs no tool call twice over 60 killed round trips', async () => {
    const output = await runScript([
      '--rounds',
      '60',
      '--sessions',
      '4',
      '--max-life',
      '800',
      '--json',
    ]);
    const counts = report.parse(JSON.parse(output.trim().split('\n').at(-1) ?? '{}'));
    console.info(`crash test (in suite): ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({
      doubleRuns: 0,
      primaryKeyViolations: 0,
      lostConfirmations: 0,
      runsWithoutConfirmation: 0,
      loadFailures: 0,
      ok: true,
    });
    expect(counts.roundTrips).toBeGreaterThanOrEqual(60);
    // Each round's call ran, or was claimed and then closed as "outcome unknown"
    // (killed after the claim, before or while it ran): never both unrecorded.
    expect(counts.executions + counts.closedAsOutcomeUnknown).toBeGreaterThanOrEqual(60);
    expect(counts.kills).toBeGreaterThan(0);
  }, 120_000);
});
