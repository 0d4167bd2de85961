/**
 * The cost of reading Bash lines twice (ADR tools-0004): tree-sitter-bash
 * and the second parser, mvdan/sh, side by side in one process. For each:
 * the cold load, the first parse after loading, and the per-line cost of a
 * warm parse over the corpus and a set of ordinary commands; then the heap
 * each load added. A repeated decision parses nothing (both readings are
 * kept per line), so these are first-decision costs; bench/permission.ts
 * gives the decision times.
 *
 * Run: npx tsx bench/bash-parsers.ts
 */
import { loadavg } from 'node:os';
import { loadBashParser } from '../packages/tools/src/bash/parser.js';
import { loadSecondParser } from '../packages/tools/src/bash/second-parser.js';
import { loadCorpus } from '../packages/tools/test/corpus.js';

const ROUNDS = 20;

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

function summary(samples: readonly number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

async function timed<T>(work: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

const lines = [
  ...loadCorpus().bash.map((entry) => entry.command),
  'git status',
  'ls -la',
  'cat README.md | grep -n TODO',
  'find . -name "*.ts" -not -path "./node_modules/*"',
  'git log --oneline -20',
];

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const [treeSitter, treeSitterLoad] = await timed(() => loadBashParser());
globalThis.gc?.();
const heapAfterFirst = process.memoryUsage().heapUsed;
const [syntax, secondLoad] = await timed(() => loadSecondParser());
globalThis.gc?.();
const heapAfterSecond = process.memoryUsage().heapUsed;

const [, treeSitterFirst] = await timed(() => treeSitter.parse('ls -la')?.delete());
const [, secondFirst] = await timed(() => syntax.NewParser().Parse('ls -la', ''));

const first: number[] = [];
const second: number[] = [];
const firstBest = lines.map(() => Infinity);
const secondBest = lines.map(() => Infinity);
for (let round = 0; round < ROUNDS; round++) {
  for (const [index, line] of lines.entries()) {
    const source = `${line}\n# round ${round}`;
    let start = performance.now();
    treeSitter.parse(source)?.delete();
    const treeSitterTime = performance.now() - start;
    start = performance.now();
    try {
      syntax.NewParser().Parse(source, '');
    } catch {
      // A refused line costs the same work; the refusal itself is the answer.
    }
    const secondTime = performance.now() - start;
    first.push(treeSitterTime);
    second.push(secondTime);
    firstBest[index] = Math.min(firstBest[index] ?? Infinity, treeSitterTime);
    secondBest[index] = Math.min(secondBest[index] ?? Infinity, secondTime);
  }
}
const a = summary(first);
const b = summary(second);
const aBest = summary(firstBest);
const bBest = summary(secondBest);
process.stdout.write(
  [
    `Bash parsers, one process. Node ${process.version}, load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(
        ' ',
      )}${globalThis.gc === undefined ? ' (heap figures without --expose-gc are rough)' : ''}`,
    `cold load:         tree-sitter-bash ${ms(treeSitterLoad)}   mvdan/sh ${ms(secondLoad)}`,
    `first parse:       tree-sitter-bash ${ms(treeSitterFirst)}   mvdan/sh ${ms(secondFirst)}`,
    `every sample (${first.length}): tree-sitter-bash p50=${ms(a.p50)} p99=${ms(a.p99)}   mvdan/sh p50=${ms(b.p50)} p99=${ms(b.p99)}   ratio p50 ${(b.p50 / a.p50).toFixed(1)}x`,
    `best per line (${lines.length}):    tree-sitter-bash p50=${ms(aBest.p50)} p99=${ms(aBest.p99)}   mvdan/sh p50=${ms(bBest.p50)} p99=${ms(bBest.p99)}   ratio p50 ${(bBest.p50 / aBest.p50).toFixed(1)}x`,
    `heap added by load: tree-sitter-bash ${mb(heapAfterFirst - heapBefore)} (its WASM memory is outside the heap)   mvdan/sh ${mb(heapAfterSecond - heapAfterFirst)}`,
  ].join('\n') + '\n',
);
