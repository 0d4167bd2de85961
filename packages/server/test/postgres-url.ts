// Shared by the server's Postgres tests. Not exported from the package.

/**
 * `PARLEY_PG_URL`, or `''` when it is not set: then the tests of `what`
 * skip with a printed reason, except in CI, where that is an error.
 */
export function postgresTestUrl(what: string): string {
  const url = process.env.PARLEY_PG_URL ?? '';
  if (url === '') {
    if (process.env.CI !== undefined) {
      throw new Error('PARLEY_PG_URL must be set in CI (.ci/services exports it).');
    }
    console.warn(
      `Skipping the ${what} tests: PARLEY_PG_URL is not set ` +
        '(e.g. postgres://postgres@127.0.0.1:5432/test; .ci/services sets it in CI).',
    );
  }
  return url;
}

/** A schema or channel name no other run uses. */
export const randomName = (prefix: string): string =>
  `${prefix}_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
