// `npm test`: runs vitest with its usual output, then prints one plain
// closing line ("Tests: N passed, N failed, N skipped; test files: N
// failed") read from vitest's JSON report (see test-summary.mjs), and exits
// with vitest's status, or 1 when the report counts a failure it did not.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { summarize } from './test-summary.mjs';

const folder = mkdtempSync(join(tmpdir(), 'parley-test-'));
const report = join(folder, 'vitest.json');
const run = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
let status = run.status ?? 1;
try {
  const summary = summarize(JSON.parse(readFileSync(report, 'utf8')), status);
  process.stdout.write(`\n${summary.lines.join('\n')}\n`);
  status = summary.status;
} catch (error) {
  process.stdout.write(`\nNo test report was written (${error.message}).\n`);
  if (status === 0) status = 1;
}
rmSync(folder, { recursive: true, force: true });
process.exit(status);
