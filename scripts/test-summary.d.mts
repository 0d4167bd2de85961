// Types of scripts/test-summary.mjs, for its test.

/** The closing lines of `npm test` from vitest's JSON report, and the status to exit with. */
export function summarize(
  result: Record<string, unknown>,
  status: number,
): { lines: string[]; status: number };
