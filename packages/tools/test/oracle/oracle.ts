import fc from 'fast-check';
import { createPermissionContext, PermissionEngine } from '@parley/core';
import type { PermissionMode } from '@parley/core';
import { Bash } from '../../src/index.js';
import { SecretFinder } from '../../src/bash/sandbox/masks.js';
import type { SandboxPolicy } from '../../src/bash/sandbox/policy-types.js';
import { BubblewrapAdapter } from '../../src/bash/sandbox/sandbox.js';
import { commandPolicy } from '../../src/bash/sandbox/sandboxed-run.js';
import { sandboxViolations } from './sandboxed-class.js';
import { commandLine, GRAMMAR_PROGRAMS, type GeneratedCommand } from './command-grammar.js';
import { createOracleSandbox, type WorkerSandbox } from './sandbox.js';
import { readTrace, stringArgument } from './strace-trace.js';
import { tracedRun, type Isolation } from './traced-run.js';
import { violationsOf, type Violation } from './write-class.js';

/**
 * The execution oracle: generates command lines from the grammar, asks the
 * real Bash tool's permission check (through `PermissionEngine`, as the
 * agent does) in `default` and `explore` mode with no rules, and runs every
 * line either mode allows, under strace, in a fresh sandbox. A line that
 * was allowed and then wrote, used the network or ran a program outside
 * the proven list is a finding, narrowed to the smallest allowed part of
 * the line that still does it.
 */

/** How to run the oracle. */
export type OracleOptions = {
  runs: number;
  seed: number;
  /** Commands run side by side (at most 2 on a shared two-core machine). */
  workers: number;
  /** Time limit of one command. */
  timeoutMs: number;
  /** Stop taking new commands after this long (the budget); the report says how many were checked. */
  budgetMs?: number;
  isolation: Isolation;
  /**
   * Run each command in the Bash tool's sandbox, with the policy the tool
   * gives it, and look only for effects outside that policy (ADR tools-0007).
   */
  throughSandbox?: boolean;
};

/** One allowed command that did more than read. */
export type OracleFinding = {
  /** The command as generated. */
  command: string;
  /** The smallest allowed part of it that still misbehaves (the command itself when no part does alone). */
  narrowed: string;
  /** The modes that allowed `narrowed`. */
  modes: PermissionMode[];
  violations: Violation[];
};

/** What a run of the oracle did. */
export type OracleReport = {
  seed: number;
  generated: number;
  /** Commands decided (all of `generated` unless the budget ran out first). */
  checked: number;
  /** Commands allowed in default or explore mode, and so run. */
  ran: number;
  timedOut: number;
  findings: OracleFinding[];
  durationMs: number;
};

const MODES: readonly PermissionMode[] = ['default', 'explore'];

/** One worker: its sandbox, its Bash tool (cwd and HOME in the sandbox) and the engines it asks. */
export type OracleWorker = {
  sandbox: WorkerSandbox;
  /** The secrets the Bash tool's sandbox masks in this worker. */
  secrets: SecretFinder;
  bash: Bash;
  engines: Map<PermissionMode, PermissionEngine>;
};

/** Runs the oracle; resolves with every finding (none is the passing result). */
export async function runOracle(options: OracleOptions): Promise<OracleReport> {
  const started = performance.now();
  const commands = fc.sample(commandLine, { seed: options.seed, numRuns: options.runs });
  const sandbox = createOracleSandbox(options.isolation.owner);
  const report: OracleReport = {
    seed: options.seed,
    generated: commands.length,
    checked: 0,
    ran: 0,
    timedOut: 0,
    findings: [],
    durationMs: 0,
  };
  const seen = new Set<string>();
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  try {
    const workers = Array.from({ length: Math.max(1, Math.min(options.workers, 2)) }, (_, index) =>
      makeWorker(sandbox.worker(index)),
    );
    let next = 0;
    await Promise.all(
      workers.map(async (worker) => {
        while (next < commands.length && performance.now() - started < budget) {
          const generated = commands[next++];
          if (generated === undefined) break;
          report.checked++;
          const finding = await check(worker, generated, options, report);
          if (finding !== undefined && !seen.has(finding.narrowed)) {
            seen.add(finding.narrowed);
            report.findings.push(finding);
          }
        }
      }),
    );
  } finally {
    sandbox.remove();
  }
  report.durationMs = performance.now() - started;
  return report;
}

function makeWorker(sandbox: WorkerSandbox): OracleWorker {
  const bash = new Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  const engines = new Map(
    MODES.map((mode) => [
      mode,
      new PermissionEngine({ mode, workingDirectories: [sandbox.project] }),
    ]),
  );
  return { sandbox, bash, engines, secrets: new SecretFinder() };
}

/** The modes in which the analysis allows `command` without asking. */
export async function allowingModes(
  worker: OracleWorker,
  command: string,
): Promise<PermissionMode[]> {
  const modes: PermissionMode[] = [];
  for (const [mode, engine] of worker.engines) {
    const decision = await engine.check(worker.bash, { command });
    if (decision.behavior === 'allow') modes.push(mode);
  }
  return modes;
}

async function check(
  worker: OracleWorker,
  generated: GeneratedCommand,
  options: OracleOptions,
  report: OracleReport,
): Promise<OracleFinding | undefined> {
  const modes = await allowingModes(worker, generated.command);
  if (modes.length === 0) return undefined;
  report.ran++;
  const violations = await execute(worker, generated.command, options, report);
  if (violations.length === 0) return undefined;
  for (const part of generated.parts) {
    if (part === generated.command) continue;
    const partModes = await allowingModes(worker, part);
    if (partModes.length === 0) continue;
    const partViolations = await execute(worker, part, options, report);
    if (partViolations.length > 0) {
      return {
        command: generated.command,
        narrowed: part,
        modes: partModes,
        violations: partViolations,
      };
    }
  }
  return { command: generated.command, narrowed: generated.command, modes, violations };
}

/** Runs one allowed command in a fresh copy of the sandbox; the calls it must not have made. */
export async function execute(
  worker: OracleWorker,
  command: string,
  options: Pick<OracleOptions, 'isolation' | 'timeoutMs' | 'throughSandbox'>,
  report?: OracleReport,
): Promise<Violation[]> {
  const policy = options.throughSandbox ? await toolPolicy(worker, command) : undefined;
  const adapter = new BubblewrapAdapter();
  const run = await tracedRun(
    command,
    worker.sandbox,
    options.isolation,
    options.timeoutMs,
    policy === undefined
      ? undefined
      : (argv) => {
          const { file, args, inherit } = adapter.wrap(policy, argv);
          return { argv: [file, ...args], inherit };
        },
  );
  if (run.timedOut && report !== undefined) report.timedOut++;
  const trace = readTrace(run.trace);
  const started = trace.events.some(
    (event) => event.name === 'execve' && stringArgument(event.args[0])?.endsWith('/bash') === true,
  );
  if (!started) {
    throw new Error(
      `the traced run of ${JSON.stringify(command)} never started bash (exit ${String(run.exitCode)}): ${run.stderr}`,
    );
  }
  const { root } = worker.sandbox;
  const violations =
    policy === undefined
      ? violationsOf(trace, GRAMMAR_PROGRAMS, worker.sandbox.tmp)
      : sandboxViolations(trace, policy);
  // A second look that needs no trace: did anything in the sandbox change?
  const changes = worker.sandbox.changes();
  if (changes.length > 0) {
    violations.push({ kind: 'write', detail: `the sandbox changed: ${changes.join(', ')}` });
  }
  if (violations.length > 0) worker.sandbox.reset();
  return violations.map((violation) => ({
    kind: violation.kind,
    // Written as the corpus writes its sandbox, so reports read the same from any machine.
    detail: violation.detail
      .replaceAll(`${root}/project`, '/project')
      .replaceAll(`${root}/home`, '/fakehome')
      .replaceAll(root, '/sandbox'),
  }));
}

/** The policy the Bash tool would run `command` with in this worker (default mode, the project as working directory). */
function toolPolicy(worker: OracleWorker, command: string): Promise<SandboxPolicy> {
  return commandPolicy(command, {
    permission: createPermissionContext({ workingDirectories: [worker.sandbox.project] }),
    location: { cwd: worker.sandbox.project, home: worker.sandbox.home },
    networkAllow: [],
    tmpdir: worker.sandbox.tmp,
    secrets: worker.secrets,
    writes: true,
  });
}

/** A finding as one line of the shared findings list: `- [open] modes | "command" | what strace saw`. */
export function findingLine(finding: OracleFinding): string {
  const saw = finding.violations
    .slice(0, 2)
    .map((violation) => `${violation.kind}: ${violation.detail.replace(/^\d+\s+/, '')}`)
    .join('; ');
  return `- [open] ${finding.modes.join('+')} | ${JSON.stringify(finding.narrowed)} | ${saw}`;
}

/** A worker of its own, for checking single commands (the oracle's self-test, the bench's replays). */
export function standaloneWorker(isolation: Isolation): {
  worker: OracleWorker;
  remove: () => void;
} {
  const sandbox = createOracleSandbox(isolation.owner);
  return { worker: makeWorker(sandbox.worker(0)), remove: () => sandbox.remove() };
}
