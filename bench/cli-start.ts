// Start time of the `parley` command: `parley --help` and
// `parley chat --help` as published (bin/parley.js on the compiled dist/,
// plain node) against the way the command started before it was compiled
// (tsx's loader registered, then src/main.ts; the repository's tests still
// start it so). Both run in this process's loop, interleaved, so load on the
// machine falls on both alike. Each child reports its own CPU time (user +
// system, from node's start to exit), which does not count moments when
// another process had the core; wall time is printed beside it.
//
// Budget: the compiled command takes at most a third of tsx's CPU time.
// Exits 1 when it does not.
//
//   npm run bench:cli        (builds first; or npx tsx bench/cli-start.ts after npm run build)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env['ROUNDS'] ?? 15);
const BUDGET = 1 / 3;

const bin = fileURLToPath(new URL('../packages/cli/bin/parley.js', import.meta.url));
const source = fileURLToPath(new URL('../packages/cli/test/parley-source.js', import.meta.url));

/** Prints the child's CPU time in µs on stderr as it exits. */
const reporter =
  'data:text/javascript,' +
  encodeURIComponent(
    "import { writeSync } from 'node:fs';" +
      "process.on('exit', () => { const used = process.cpuUsage();" +
      ' writeSync(2, `\\ncpu-us ${used.user + used.system}\\n`); });',
  );

const ways = {
  'tsx (before)': ['--conditions=@parley/source', source],
  'compiled (now)': [bin],
} as const;

type Way = keyof typeof ways;
const wayNames: Way[] = ['tsx (before)', 'compiled (now)'];
type Sample = { cpuMs: number; wallMs: number };

function once(way: Way, args: string[]): Sample {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', reporter, ...ways[way], ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const wallMs = performance.now() - started;
  const cpu = /cpu-us (\d+)/.exec(result.stderr)?.[1];
  if (result.status !== 0 || cpu === undefined || !result.stdout.includes('Usage: parley')) {
    throw new Error(`${way} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  }
  return { cpuMs: Number(cpu) / 1000, wallMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

let withinBudget = true;
for (const args of [['--help'], ['chat', '--help']]) {
  const samples: Record<Way, Sample[]> = { 'tsx (before)': [], 'compiled (now)': [] };
  for (const way of wayNames) once(way, args); // warm caches (tsx's too)
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of wayNames) samples[way].push(once(way, args));
  }
  const cpu = (way: Way): number => median(samples[way].map((sample) => sample.cpuMs));
  const wall = (way: Way): number => median(samples[way].map((sample) => sample.wallMs));
  console.log(`parley ${args.join(' ')}: median of ${ROUNDS} runs each`);
  for (const way of wayNames) {
    console.log(
      `  ${way.padEnd(15)} ${cpu(way).toFixed(0).padStart(5)} ms CPU   ${wall(way).toFixed(0).padStart(5)} ms wall`,
    );
  }
  const ratio = cpu('compiled (now)') / cpu('tsx (before)');
  const wallRatio = wall('compiled (now)') / wall('tsx (before)');
  const met = ratio <= BUDGET;
  withinBudget &&= met;
  console.log(
    `  compiled / tsx: ${ratio.toFixed(2)} CPU, ${wallRatio.toFixed(2)} wall; budget ≤ ${BUDGET.toFixed(2)} CPU: ${met ? 'met' : 'NOT met'}`,
  );
}
process.exit(withinBudget ? 0 : 1);
