import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../errors.js';
import type { Principal } from '../../auth/principal.js';

/**
 * A per-principal rate limit: at most `requests` requests in every window
 * of `windowSeconds` seconds.
 */
export type RateLimitOptions = { requests: number; windowSeconds: number };

/** Counts a principal's requests; `take` refuses one over the limit with `RateLimitedError`. */
export type RateLimit = { take(principal: Principal): Promise<void> };

/** A rate limit over one of `rate-limiter-flexible`'s limiters, keyed by principal id. */
function rateLimitOver(limiter: RateLimiterAbstract): RateLimit {
  return {
    take: async (principal) => {
      try {
        await limiter.consume(principal.id);
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          throw new RateLimitedError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
        }
        throw error;
      }
    },
  };
}

/** A rate limit counted in this process's memory (`rate-limiter-flexible`'s memory store): one node. */
export function memoryRateLimit(options: RateLimitOptions): RateLimit {
  return rateLimitOver(
    new RateLimiterMemory({ points: options.requests, duration: options.windowSeconds }),
  );
}

/**
 * Where a Postgres rate limit counts: `pool`, and the `schema` of its table
 * (`parley_rate_limits`, created if missing; default `public`).
 */
export type PostgresRateLimitStore = { pool: Pool; schema?: string };

/**
 * Codes Postgres gives a `CREATE TABLE IF NOT EXISTS` that raced another
 * one (another node starting at the same time): the table is there now.
 */
const creationRaces: ReadonlySet<string> = new Set(['23505', '42710', '42P07']);

/** How many times the table's creation is tried when it races another. */
const CREATION_ATTEMPTS = 3;

function postgresLimiter(
  options: RateLimitOptions,
  store: PostgresRateLimitStore,
): Promise<RateLimiterPostgres> {
  return new Promise((resolve, reject) => {
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      {
        storeClient: store.pool,
        storeType: 'pool',
        schemaName: store.schema ?? 'public',
        tableName: 'parley_rate_limits',
        points: options.requests,
        duration: options.windowSeconds,
      },
      (error?: Error) => {
        if (error === undefined || error === null) resolve(limiter);
        else reject(error);
      },
    );
  });
}

/**
 * A rate limit counted in Postgres (`rate-limiter-flexible`'s Postgres
 * store), so several nodes share each principal's budget. Resolves once
 * its table exists (nodes starting together may race to create it: the
 * loser tries again).
 */
export async function postgresRateLimit(
  options: RateLimitOptions,
  store: PostgresRateLimitStore,
): Promise<RateLimit> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return rateLimitOver(await postgresLimiter(options, store));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const raced = typeof code === 'string' && creationRaces.has(code);
      if (!raced || attempt === CREATION_ATTEMPTS) throw error;
    }
  }
}
