import type { Context, MiddlewareHandler } from 'hono';
import { addressBucket, type RateLimitOptions, TokenBuckets } from '../rate-limit.js';
import { ApiProblem } from '../problem.js';
import type { ServerEnv } from '../server-env.js';
import type { ApiKeys } from './api-keys.js';
import { bearerToken } from './authenticate.js';

/** The default: 50 failures, then 5 a second, per address. */
export const FAILED_CREDENTIALS_LIMIT: RateLimitOptions = { perSecond: 5, burst: 50 };

/**
 * Credentials that fail are charged to the caller's address (its IPv6 /64): each made-up key is
 * a store read, and the per-key rate limit never sees them. Past 50 failures, then 5 a second,
 * the address's Bearer tokens are refused with 429 before any read, unless the token is a key
 * this server verified in the last few seconds: a valid key behind the same address still works.
 */
export function limitFailedCredentials(
  keys: ApiKeys,
  clientAddress: (c: Context<ServerEnv>) => string | null,
  limit: RateLimitOptions = FAILED_CREDENTIALS_LIMIT,
): MiddlewareHandler<ServerEnv> {
  const buckets = new TokenBuckets(limit);
  return async (c, next) => {
    // No address has failed lately (the usual case): nothing to look up.
    if (!buckets.isEmpty(Date.now())) {
      const bucket = buckets.refilled(addressBucket(clientAddress(c)), Date.now(), false);
      const token = bearerToken(c.req.header('authorization'));
      if (bucket && bucket.tokens < 1 && !(token && keys.isTrusted(token)))
        throw new ApiProblem('rate_limited', 'too many failed credentials from this address', {
          retryAfterSeconds: buckets.retryAfterSeconds(bucket),
        });
    }
    await next();
    // Hono has turned a refusal further in into its response by now.
    if (c.res.status === 401)
      buckets.refilled(addressBucket(clientAddress(c)), Date.now()).tokens -= 1;
  };
}
