import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from './errors.js';
import type { Principal } from './principal.js';

/**
 * A per-principal rate limit: at most `requests` requests in every window
 * of `windowSeconds` seconds, counted in this process's memory.
 */
export type RateLimitOptions = { requests: number; windowSeconds: number };

/** Counts a principal's requests; `take` refuses one over the limit with `RateLimitedError`. */
export type RateLimit = { take(principal: Principal): Promise<void> };

/** A rate limit over `rate-limiter-flexible`'s memory store, keyed by principal id. */
export function memoryRateLimit(options: RateLimitOptions): RateLimit {
  const limiter = new RateLimiterMemory({
    points: options.requests,
    duration: options.windowSeconds,
  });
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
