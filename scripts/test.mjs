// `npm test`: runs vitest with its usual output, then prints one plain
// closing line ("Tests: N passed, N failed, N skipped") read from vitest's
// JSON report, and exits with vitest's status.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

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
  const result = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
  process.stdout.write(
    `\nTests: ${result.numPassedTests} passed, ${result.numFailedTests} failed, ${skipped} skipped\n`,
  );
  if (result.numTotalTests === 0) {
    process.stdout.write('No test ran.\n');
    status = status === 0 ? 1 : status;
  }
} catch (error) {
  process.stdout.write(`\nNo test report was written (${error.message}).\n`);
  if (status === 0) status = 1;
}
rmSync(folder, { recursive: true, force: true });
process.exit(status);
