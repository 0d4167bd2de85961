// The closing line of `npm test`, read from vitest's JSON report, and the
// status the run exits with: the two never disagree. A test file that fails
// outside its tests (in `beforeAll`, or at import) counts as a failed file,
// though no test in it failed.

/**
 * @param {Record<string, any>} result vitest's JSON report
 * @param {number} status vitest's exit status
 * @returns {{ lines: string[]; status: number }}
 */
export function summarize(result, status) {
  const skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
  // Files, from the files: vitest's numFailedTestSuites also counts the
  // describe blocks of a failed file. It is only the fallback.
  const failedFiles = Array.isArray(result.testResults)
    ? result.testResults.filter((file) => file.status === 'failed').length
    : (result.numFailedTestSuites ?? 0);
  const failedTests = result.numFailedTests ?? 0;
  const lines = [
    `Tests: ${result.numPassedTests ?? 0} passed, ${failedTests} failed, ${skipped} skipped; test files: ${failedFiles} failed`,
  ];
  let exit = status;
  if (failedTests + failedFiles > 0 && exit === 0) exit = 1;
  if ((result.numTotalTests ?? 0) === 0 && failedFiles === 0) {
    lines.push('No test ran.');
    if (exit === 0) exit = 1;
  }
  if (exit !== 0 && failedTests + failedFiles === 0 && (result.numTotalTests ?? 0) > 0) {
    lines.push(`Failed: vitest exited with status ${exit} (see its output above).`);
  }
  return { lines, status: exit };
}
