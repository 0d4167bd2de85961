import { describe, expect, it } from 'vitest';
import { summarize } from './test-summary.mjs';

// What vitest's JSON report holds for two files that fail outside their
// tests: one in beforeAll (its test skipped), one at import (no test).
const brokenSetup = {
  numTotalTestSuites: 2,
  numFailedTestSuites: 2,
  numTotalTests: 1,
  numPassedTests: 0,
  numFailedTests: 0,
  numPendingTests: 1,
  numTodoTests: 0,
  testResults: [
    { name: 'a.test.ts', status: 'failed', message: 'setup broke' },
    { name: 'b.test.ts', status: 'failed', message: 'import broke' },
  ],
};

describe('the closing line of npm test', () => {
  it('counts files that failed outside their tests, so it never says 0 failed on a failed run', () => {
    expect(summarize(brokenSetup, 1)).toEqual({
      lines: ['Tests: 0 passed, 0 failed, 1 skipped; test files: 2 failed'],
      status: 1,
    });
  });

  it('counts failed files from the files when the total is missing', () => {
    const { numFailedTestSuites: _left, ...report } = brokenSetup;
    expect(summarize(report, 1).lines[0]).toContain('test files: 2 failed');
  });

  it('counts a failed file once, though vitest counts its describe block as a suite too', () => {
    const oneFile = {
      numTotalTests: 3,
      numPassedTests: 2,
      numFailedTests: 1,
      numFailedTestSuites: 2,
      testResults: [{ status: 'failed' }, { status: 'passed' }],
    };
    expect(summarize(oneFile, 1)).toEqual({
      lines: ['Tests: 2 passed, 1 failed, 0 skipped; test files: 1 failed'],
      status: 1,
    });
  });

  it('a failure the report counts fails the run, even if vitest exited 0', () => {
    expect(summarize({ ...brokenSetup, numFailedTestSuites: 0 }, 0).status).toBe(1);
  });

  it('a passing run passes and says so', () => {
    const passed = {
      numTotalTests: 3,
      numPassedTests: 3,
      numFailedTests: 0,
      numFailedTestSuites: 0,
      testResults: [{ status: 'passed' }],
    };
    expect(summarize(passed, 0)).toEqual({
      lines: ['Tests: 3 passed, 0 failed, 0 skipped; test files: 0 failed'],
      status: 0,
    });
  });

  it('a failed run with nothing counted says why it failed', () => {
    const passed = { numTotalTests: 1, numPassedTests: 1, testResults: [{ status: 'passed' }] };
    expect(summarize(passed, 1)).toEqual({
      lines: [
        'Tests: 1 passed, 0 failed, 0 skipped; test files: 0 failed',
        'Failed: vitest exited with status 1 (see its output above).',
      ],
      status: 1,
    });
  });

  it('no test at all fails the run', () => {
    expect(summarize({ numTotalTests: 0, testResults: [] }, 0)).toEqual({
      lines: ['Tests: 0 passed, 0 failed, 0 skipped; test files: 0 failed', 'No test ran.'],
      status: 1,
    });
  });
});
