import { Pool, escapeIdentifier } from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';

/**
 * For tests: `PARLEY_PG_URL`, or `''` when it is not set, and then the
 * tests of `what` skip with a printed reason.
 */
export function postgresTestUrl(what: string): string {
  const url = process.env.PARLEY_PG_URL ?? '';
  if (url === '') {
    console.warn(
      `Skipping the ${what} tests: PARLEY_PG_URL is not set ` +
        '(e.g. postgres://postgres@127.0.0.1:5432/test; .ci/services sets it in CI).',
    );
  }
  return url;
}

/** For tests: a schema (or NOTIFY channel) name no other run uses. */
export function randomName(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
}

/**
 * For tests, called inside a `describe`: an admin pool open for the block,
 * for reaching behind a store's back, and fresh schema names, each dropped
 * with everything in it after the test that asked for it.
 */
export function useTestSchemas(connectionString: string): {
  admin: () => Pool;
  testSchema: (prefix?: string) => string;
} {
  let pool: Pool | undefined;
  const schemas: string[] = [];
  const admin = (): Pool => {
    if (pool === undefined) throw new Error('the admin pool opens in beforeAll');
    return pool;
  };
  beforeAll(() => {
    pool = new Pool({ connectionString, max: 2 });
  });
  afterEach(async () => {
    for (const schema of schemas.splice(0)) {
      await admin().query(`DROP SCHEMA IF EXISTS ${escapeIdentifier(schema)} CASCADE`);
    }
  });
  afterAll(async () => {
    await admin().end();
  });
  return {
    admin,
    testSchema: (prefix = 'parley_test') => {
      const schema = randomName(prefix);
      schemas.push(schema);
      return schema;
    },
  };
}
