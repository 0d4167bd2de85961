/**
 * The execution oracle (docs/decisions/tools-0005-bash-execution-oracle.md):
 * every generated command the Bash permission check allows is run under
 * strace and must only read. Needs Debian's `strace` and a network
 * namespace (`unshare -n`); `.ci/services` installs strace. Outside CI the
 * file skips with the reason when they are missing; in CI it fails. The
 * two tests through the sandbox also need bubblewrap, and skip the same way.
 *
 * PARLEY_ORACLE_SEED (a number, or `random`) and PARLEY_ORACLE_RUNS change
 * the seed and the number of commands; `npx tsx bench/bash-oracle.ts`
 * runs more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine } from '@parley/core';
import {
  allowingModes,
  execute,
  findingLine,
  runOracle,
  standaloneWorker,
  type OracleWorker,
} from './oracle/oracle.js';
import { oracleIsolation } from './oracle/traced-run.js';
import { runSandboxTests } from './bubblewrap-ready.js';

/** CI's seed: fixed, so a red run can be replayed with the same commands. */
const CI_SEED = 20_261_203;
const RUNS = Number(process.env.PARLEY_ORACLE_RUNS ?? 6000);
const BUDGET_MS = 45_000;
/** Through the sandbox each run costs a sandbox more; fewer commands, own budget. */
const SANDBOXED_RUNS = Math.ceil(RUNS / 4);
const SANDBOXED_BUDGET_MS = 30_000;
const TIMEOUT_MS = 3_000;
const oracle = oracleIsolation('bash execution oracle');

function seed(): number {
  const given = process.env.PARLEY_ORACLE_SEED;
  if (given === undefined || given === '') return CI_SEED;
  if (given === 'random') return Math.floor(Math.random() * 2 ** 31);
  return Number(given);
}

// In CI the tests run even without strace, and fail on the first line.
describe.runIf(oracle.runs)('bash execution oracle (strace)', () => {
  let worker: OracleWorker;
  let remove: () => void = () => undefined;
  const ready = oracle.ready;

  beforeAll(async () => {
    const standalone = standaloneWorker(ready());
    worker = standalone.worker;
    remove = standalone.remove;
    // Warm the grammar so every decision is made on a real parse.
    await new PermissionEngine().check(worker.bash, { command: 'true' });
  }, 60_000);
  afterAll(() => remove());

  /** The kinds of violation a run showed, each once, sorted. */
  const run = (command: string): Promise<string[]> =>
    execute(worker, command, { isolation: ready(), timeoutMs: TIMEOUT_MS }).then((violations) =>
      [...new Set(violations.map((violation) => violation.kind))].sort(),
    );

  it('sees a write, a connect and an unproven program when they happen', async () => {
    expect(await run('echo x > out.txt')).toEqual(['write']);
    expect(await run(': < /dev/tcp/127.0.0.1/9')).toEqual(['network']);
    expect(await run('cat README.md | sh -c true')).toEqual(['exec']);
    expect(await run('rm notes.txt')).toEqual(['exec', 'write']);
  });

  it('sees nothing wrong in commands that only read', async () => {
    expect(await run('cat README.md | wc -l > /dev/null 2>&1')).toEqual([]);
    expect(await run('git status && git log --oneline -1')).toEqual([]);
    expect(await run('tac < /proc/self/status | head -1')).toEqual([]);
  });

  it.each([
    'ls -la',
    'cat README.md',
    'grep -rn foo src',
    'git log --oneline -5',
    "find . -name '*.ts'",
  ])('still allows the harmless control %s, which only reads', async (command) => {
    expect(await allowingModes(worker, command)).toEqual(['default', 'explore']);
    expect(await run(command)).toEqual([]);
  });

  it(
    'runs every generated command the check allows, and none of them writes, connects or runs an unproven program',
    async () => {
      const chosen = seed();
      console.log(
        `bash oracle: seed ${chosen}, ${RUNS} commands (replay: PARLEY_ORACLE_SEED=${chosen} PARLEY_ORACLE_RUNS=${RUNS})`,
      );
      const report = await runOracle({
        runs: RUNS,
        seed: chosen,
        workers: 2,
        timeoutMs: TIMEOUT_MS,
        budgetMs: BUDGET_MS,
        isolation: ready(),
      });
      console.log(
        `bash oracle: ${report.checked} of ${report.generated} checked, ${report.ran} allowed and run, ` +
          `${report.timedOut} timed out, ${report.findings.length} findings, ${(report.durationMs / 1000).toFixed(1)} s`,
      );
      if (report.checked < report.generated) {
        console.log(
          `bash oracle: the ${BUDGET_MS / 1000} s budget ran out before every command was checked`,
        );
      }
      expect(report.ran).toBeGreaterThan(0);
      expect(report.findings.map(findingLine)).toEqual([]);
    },
    BUDGET_MS + 30_000,
  );

  // The sandbox's own tests need bubblewrap too: without it, outside CI,
  // they skip with the reason `bubblewrap-ready` prints.
  it.runIf(runSandboxTests)(
    'runs the commands the check allows through the sandboxed tool, and none has an effect outside its policy',
    async () => {
      const chosen = seed();
      const report = await runOracle({
        runs: SANDBOXED_RUNS,
        seed: chosen,
        workers: 2,
        timeoutMs: TIMEOUT_MS,
        budgetMs: SANDBOXED_BUDGET_MS,
        isolation: ready(),
        throughSandbox: true,
      });
      console.log(
        `bash oracle through the sandbox: ${report.checked} of ${report.generated} checked, ${report.ran} run, ` +
          `${report.findings.length} findings, ${(report.durationMs / 1000).toFixed(1)} s`,
      );
      expect(report.ran).toBeGreaterThan(0);
      expect(report.findings.map(findingLine)).toEqual([]);
    },
    SANDBOXED_BUDGET_MS + 30_000,
  );

  it.runIf(runSandboxTests)(
    'through the sandbox, sees a write that took effect and not one the sandbox blocked',
    async () => {
      const sandboxed = (command: string): Promise<string[]> =>
        execute(worker, command, {
          isolation: ready(),
          timeoutMs: TIMEOUT_MS,
          throughSandbox: true,
        }).then((violations) => [...new Set(violations.map((violation) => violation.kind))].sort());
      // Read-only policy: the write fails with EROFS, nothing changes.
      expect(await sandboxed('cat README.md; echo x > /tmp/private.txt')).toEqual([]);
      // Write policy: writing the project is what the policy allows, and is seen as a write.
      expect(await sandboxed('echo x > out.txt')).toEqual(['write']);
    },
  );
});
