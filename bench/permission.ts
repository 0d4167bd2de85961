/**
 * Permission decision time for Bash commands, through `PermissionEngine.check`
 * with the grammar warm: the adversarial corpus and a set of ordinary
 * commands. Target: p99 < 1 ms per decision.
 *
 * Two costs per command: the first decision (the line is parsed and
 * analysed; a trailing comment line makes each repeat a fresh parse) and a
 * repeated decision (analysis cached). Each is given two ways: every sample
 * (wall clock, so it includes the scheduler's pauses on a busy machine), and
 * per command the best of the repeats (the cost of the work itself). The load
 * average is printed so the two can be read together.
 *
 * Run: npx tsx bench/permission.ts
 */
import { PermissionEngine } from '@parley/core';
import type { PermissionMode } from '@parley/core';
import { Bash } from '@parley/tools';
import { createSandbox, loadCorpus } from '../packages/tools/test/corpus.js';

const ORDINARY = [
  'git status',
  'git diff --stat',
  'git log --oneline -20',
  'git add -A && git commit -m "fix: handle empty input"',
  'git push origin main',
  'npm test',
  'npm run build',
  'npm run lint -- --fix',
  'npm install',
  'npx tsc --noEmit',
  'ls -la',
  'ls src | head -20',
  'cat package.json',
  'cat README.md | grep -n TODO',
  'grep -rn "export function" src | wc -l',
  'rg --files | head',
  'find . -name "*.ts" -not -path "./node_modules/*"',
  'mkdir -p build/out && cp README.md build/out/',
  'rm -f build/out/README.md',
  'echo "done" > build/status.txt',
  'node scripts/check.js',
  'python3 -m pytest -q',
  'cargo test',
  'make -j4',
  'docker compose up -d',
  'curl -s https://example.com/health',
  'sed -n "1,40p" src/index.ts',
  'awk "{print \\$1}" data.txt',
  'wc -l src/*.ts',
  'head -n 50 CHANGELOG.md',
  'tail -f log.txt',
  'cd src && ls',
  'NODE_ENV=test npm test',
  'timeout 60 npm run e2e',
  'git stash list',
  'git branch -a',
  'pwd',
  'which node',
  'du -sh node_modules',
  'tsc -p tsconfig.json --noEmit 2>&1 | head -40',
];

import { loadavg } from 'node:os';

const ROUNDS = 30;

type Case = { command: string; mode: PermissionMode };
type Timings = { all: number[]; best: number[] };

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

function line(label: string, samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const format = (value: number): string => `${value.toFixed(3)} ms`;
  return `${label.padEnd(50)} n=${String(samples.length).padStart(6)}  p50=${format(percentile(sorted, 50))}  p99=${format(percentile(sorted, 99))}  max=${format(sorted.at(-1) ?? 0)}`;
}

/** Times `ROUNDS` decisions per case; `fresh` makes every one a new line to parse. */
async function measure(
  bash: Bash,
  cases: readonly Case[],
  engineFor: (mode: PermissionMode) => PermissionEngine,
  fresh: boolean,
): Promise<Timings> {
  const all: number[] = [];
  const best = cases.map(() => Infinity);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, item] of cases.entries()) {
      const command = fresh ? `${item.command}\n# round ${round}` : item.command;
      const engine = engineFor(item.mode);
      const start = performance.now();
      await engine.check(bash, { command });
      const elapsed = performance.now() - start;
      all.push(elapsed);
      best[index] = Math.min(best[index] ?? Infinity, elapsed);
    }
  }
  return { all, best };
}

const sandbox = createSandbox();
try {
  const bash = new Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  const engines = new Map<PermissionMode, PermissionEngine>();
  const engineFor = (mode: PermissionMode): PermissionEngine => {
    let engine = engines.get(mode);
    if (engine === undefined) {
      engine = new PermissionEngine({
        mode,
        workingDirectories: [sandbox.project],
        allowRules: sandbox.allowRules(true),
        denyRules: [
          { toolName: 'Bash', ruleContent: 'rm -rf:*', behavior: 'deny', source: 'bench' },
        ],
      });
      engines.set(mode, engine);
    }
    return engine;
  };
  // Warm the grammar (loaded once, lazily) and the JIT.
  await engineFor('default').check(bash, { command: 'true' });
  for (let i = 0; i < 200; i++)
    await engineFor('default').check(bash, { command: `echo warm-up-${i}` });

  const corpus: Case[] = loadCorpus().bash.map((entry) => ({
    command: sandbox.place(entry.command),
    mode: entry.mode ?? 'default',
  }));
  const ordinary: Case[] = ORDINARY.map((command) => ({ command, mode: 'default' }));
  const report = [
    `Bash permission decisions, PermissionEngine.check, grammar warm. Node ${process.version}, load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  ];
  for (const [name, cases] of [
    ['corpus', corpus],
    ['ordinary', ordinary],
  ] as const) {
    const first = await measure(bash, cases, engineFor, true);
    const repeated = await measure(bash, cases, engineFor, false);
    report.push(
      line(`${name} (${cases.length}), first decision, every sample`, first.all),
      line(`${name} (${cases.length}), first decision, best per command`, first.best),
      line(`${name} (${cases.length}), repeated, every sample`, repeated.all),
      line(`${name} (${cases.length}), repeated, best per command`, repeated.best),
    );
  }
  process.stdout.write(`${report.join('\n')}\n`);
} finally {
  sandbox.remove();
}
