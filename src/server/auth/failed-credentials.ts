import type { Context, MiddlewareHandler } from 'hono';
import { addressBucket } from '../rate-limit.js';
import { ApiProblem } from '../problem.js';
import type { ServerEnv } from '../server-env.js';
import type { ApiKeys } from './api-keys.js';

interface Bucket {
  tokens: number;
  at: number;
}

/** The default: 50 failures, then 5 a second, per address. */
export const FAILED_CREDENTIALS_LIMIT = { perSecond: 5, burst: 50 } as const;
const IDLE_MS = 60_000;

/**
 * Credentials that fail are charged to the caller's address (its IPv6 /64): each made-up key is
 * a store read, and the per-key rate limit never sees them. Past 50 failures, then 5 a second,
 * the address's Bearer tokens are refused with 429 before any read, unless the token is a key
 * this server verified in the last few seconds: a valid key behind the same address still works.
 */
export function limitFailedCredentials(
  keys: ApiKeys,
  clientAddress: (c: Context<ServerEnv>) => string | null,
  limit: { perSecond: number; burst: number } = FAILED_CREDENTIALS_LIMIT,
): MiddlewareHandler<ServerEnv> {
  const { perSecond, burst } = limit;
  const buckets = new Map<string, Bucket>();
  let sweptAt = Date.now();
  const bucketOf = (id: string, now: number): Bucket => {
    if (now - sweptAt > IDLE_MS) {
      for (const [key, bucket] of buckets) if (now - bucket.at > IDLE_MS) buckets.delete(key);
      sweptAt = now;
    }
    const bucket = buckets.get(id) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    buckets.set(id, bucket);
    return bucket;
  };
  return async (c, next) => {
    // No address has failed lately (the usual case): nothing to look up.
    if (buckets.size > 0) {
      const id = addressBucket(clientAddress(c));
      const bucket = buckets.has(id) ? bucketOf(id, Date.now()) : null;
      const token = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (bucket && bucket.tokens < 1 && !(token && keys.isTrusted(token)))
        throw new ApiProblem('rate_limited', 'too many failed credentials from this address', {
          retryAfterSeconds: (1 - bucket.tokens) / perSecond,
        });
    }
    await next();
    // Hono has turned a refusal further in into its response by now.
    if (c.res.status === 401) bucketOf(addressBucket(clientAddress(c)), Date.now()).tokens -= 1;
  };
}
