/**
 * What the Bash tool's sandbox (ADR tools-0007) adds to each command's
 * start: the same command run bare and sandboxed, interleaved in one run,
 * reported as p50 and p99 wall time, the difference and the ratio.
 *
 * - "process": `true` spawned as the tool spawns it (`/bin/sh -c … bash -c`),
 *   bare and under bubblewrap with a read-only policy (own network and PID
 *   namespaces, private /tmp, masks): the sandbox program alone.
 * - "tool, small project": `Bash.execute` of `true` in the corpus's
 *   throwaway project, setting `off` against `auto` (bubblewrap): adds the
 *   analysis for the policy and the search for secrets to mask.
 * - "tool, this checkout": the same with this repository as the project,
 *   where the walk for secrets is longest (reused for 30 s; its first, cold
 *   cost is reported apart).
 *
 * Run: npx tsx bench/sandbox-start.ts [runs]   (default 200 per side)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Bash } from '../packages/tools/src/index.js';
import { createPermissionContext, type ToolContext } from '@parley/core';
import { BubblewrapAdapter } from '../packages/tools/src/bash/sandbox/sandbox.js';
import { SecretFinder } from '../packages/tools/src/bash/sandbox/masks.js';
import { commandPolicy } from '../packages/tools/src/bash/sandbox/sandboxed-run.js';
import { createSandbox } from '../packages/tools/test/corpus.js';

const RUNS = Number(process.argv[2] ?? 200);
const SHELL = ['/bin/sh', '-c', 'exec 2>&1; exec bash -c "$1"', 'parley-bash', 'true'];

function spawnOnce(
  file: string,
  args: string[],
  cwd: string,
  inherit: number[] = [],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'ignore', 'ignore', ...inherit] });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

const quiet = (): void => undefined;
function context(cwd: string): ToolContext {
  return {
    toolCallId: 'bench',
    replyId: 'bench',
    sessionId: 'bench',
    signal: new AbortController().signal,
    permission: createPermissionContext({ workingDirectories: [cwd] }),
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  };
}

async function drain(bash: Bash, cwd: string): Promise<void> {
  for await (const chunk of bash.execute({ command: 'true' }, context(cwd))) {
    if (chunk.type === 'tool_end' && chunk.state !== 'success') throw new Error('run failed');
  }
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** Runs both sides alternately, `RUNS` times each, after a few warm-up runs. */
async function compare(
  name: string,
  bare: () => Promise<void>,
  sandboxed: () => Promise<void>,
): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await bare();
    await sandboxed();
  }
  const times = { bare: [] as number[], sandboxed: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    for (const side of i % 2 === 0
      ? (['bare', 'sandboxed'] as const)
      : (['sandboxed', 'bare'] as const)) {
      const started = performance.now();
      await (side === 'bare' ? bare() : sandboxed());
      times[side].push(performance.now() - started);
    }
  }
  const row = (p: number): string => {
    const a = percentile(times.bare, p);
    const b = percentile(times.sandboxed, p);
    return `p${p} bare ${a.toFixed(1)} ms, sandboxed ${b.toFixed(1)} ms, added ${(b - a).toFixed(1)} ms (x${(b / a).toFixed(2)})`;
  };
  console.log(`${name} (${RUNS} runs each)\n  ${row(50)}\n  ${row(99)}`);
}

const adapter = new BubblewrapAdapter();
const problem = adapter.problem();
if (problem !== undefined) {
  console.log(`no sandbox here: ${problem}`);
  process.exit(1);
}

const corpus = createSandbox();
try {
  const home = corpus.home;
  const policy = await commandPolicy('true', {
    permission: createPermissionContext({ workingDirectories: [corpus.project] }),
    location: { cwd: corpus.project, home },
    networkAllow: [],
    tmpdir: undefined,
    secrets: new SecretFinder(),
    writes: true,
  });
  const wrapped = adapter.wrap(policy, SHELL);
  await compare(
    'process: sh -c bash -c true',
    () => spawnOnce(SHELL[0] ?? '', SHELL.slice(1), corpus.project),
    () => spawnOnce(wrapped.file, wrapped.args, corpus.project, wrapped.inherit),
  );

  const small = {
    bare: new Bash({ cwd: corpus.project, env: { HOME: home }, sandbox: 'off' }),
    sandboxed: new Bash({ cwd: corpus.project, env: { HOME: home }, sandbox: 'required' }),
  };
  await compare(
    'tool, small project: Bash.execute true',
    () => drain(small.bare, corpus.project),
    () => drain(small.sandboxed, corpus.project),
  );

  const checkout = path.resolve(import.meta.dirname, '..');
  const finder = new SecretFinder();
  const started = performance.now();
  await finder.find([checkout], home);
  console.log(
    `walk for secrets in this checkout (cold, then reused for 30 s): ${(performance.now() - started).toFixed(1)} ms`,
  );
  const large = {
    bare: new Bash({ cwd: checkout, env: { HOME: home }, sandbox: 'off' }),
    sandboxed: new Bash({ cwd: checkout, env: { HOME: home }, sandbox: 'required' }),
  };
  await compare(
    'tool, this checkout: Bash.execute true',
    () => drain(large.bare, checkout),
    () => drain(large.sandboxed, checkout),
  );
} finally {
  corpus.remove();
}
