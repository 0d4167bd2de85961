import { bubblewrapProblem } from '../src/bash/sandbox/bubblewrap.js';

const inCi = process.env.CI === 'true' || process.env.CI === '1';
const problem = bubblewrapProblem('bwrap');

/**
 * Whether the sandbox tests run: bubblewrap works here, or this is CI,
 * where `.ci/services` installs it and a missing one must fail the tests.
 * Outside CI, a missing one skips them with the reason printed.
 */
export const runSandboxTests = problem === undefined || inCi;

if (!runSandboxTests) console.log(`sandbox tests skipped: ${problem ?? ''}`);
