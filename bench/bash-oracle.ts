/**
 * The Bash execution oracle with more runs than CI's (see
 * docs/decisions/tools-0005-bash-execution-oracle.md): generated command
 * lines that the permission check allows in default or explore mode are run
 * under strace in a throwaway sandbox, and every one that wrote, used the
 * network or ran an unproven program is printed, narrowed down, as a JSON
 * line. Needs strace and `unshare -n` (root, or user namespaces).
 *
 * Run: npx tsx bench/bash-oracle.ts --runs 20000 --seed 42 [--workers 2] [--timeout-ms 3000]
 *      npx tsx bench/bash-oracle.ts --print --runs 20 --seed 42   (only print generated commands)
 *      … --findings-file FILE   (also append each finding to FILE as a `- [open] modes | "command" | saw` line)
 * Without --seed a random seed is used and printed, so a finding can be replayed.
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { commandLine } from '../packages/tools/test/oracle/command-grammar.js';
import { findingLine, runOracle } from '../packages/tools/test/oracle/oracle.js';
import { probeIsolation } from '../packages/tools/test/oracle/traced-run.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    seed: { type: 'string' },
    workers: { type: 'string', default: '2' },
    'timeout-ms': { type: 'string', default: '3000' },
    print: { type: 'boolean', default: false },
    'findings-file': { type: 'string' },
  },
});

const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(runs) || runs <= 0 || !Number.isSafeInteger(seed)) {
  console.error(
    'usage: bash-oracle.ts --runs N --seed S [--workers W] [--timeout-ms MS] [--print]',
  );
  process.exit(2);
}

if (values.print) {
  for (const generated of fc.sample(commandLine, { seed, numRuns: runs })) {
    console.log(JSON.stringify(generated.command));
  }
  process.exit(0);
}

const probe = probeIsolation();
if ('missing' in probe) {
  console.error(`cannot run the oracle here: ${probe.missing}`);
  process.exit(2);
}

console.log(`bash oracle: ${runs} commands, seed ${seed}`);
const report = await runOracle({
  runs,
  seed,
  workers: Number(values.workers),
  timeoutMs: Number(values['timeout-ms']),
  isolation: probe.isolation,
});
for (const finding of report.findings) {
  console.log(
    JSON.stringify({
      command: finding.narrowed,
      modes: finding.modes,
      saw: finding.violations
        .slice(0, 3)
        .map((violation) => `${violation.kind}: ${violation.detail}`),
      generated: finding.command,
    }),
  );
}
if (values['findings-file'] !== undefined && report.findings.length > 0) {
  const lines = report.findings.map((finding) => `${findingLine(finding)} (seed ${seed})\n`);
  appendFileSync(values['findings-file'], lines.join(''));
}
console.log(
  `seed ${report.seed}: ${report.generated} generated, ${report.checked} checked, ${report.ran} allowed and run, ` +
    `${report.timedOut} timed out, ${report.findings.length} findings, ${(report.durationMs / 1000).toFixed(1)} s`,
);
process.exit(report.findings.length === 0 ? 0 : 1);
