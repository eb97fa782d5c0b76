import type { Context, MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import { ApiProblem } from './problem.js';
import type { ServerEnv } from './server-env.js';

export interface RateLimitOptions {
  /** Sustained requests per second per key. */
  perSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets idle this long are forgotten, so the map does not grow with every key ever seen. */
const IDLE_MS = 60_000;

/** One token bucket per id (a key, an address), refilled by the time that passed. */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  #sweptAt = Date.now();

  constructor(private readonly options: RateLimitOptions) {}

  /** True when no id has a bucket (those idle past a minute are forgotten first). */
  isEmpty(now: number): boolean {
    this.#sweep(now);
    return this.#buckets.size === 0;
  }

  /** The bucket of `id`, refilled to `now`; made full when it has none and `make` is set. */
  refilled(id: string, now: number): Bucket;
  refilled(id: string, now: number, make: false): Bucket | null;
  refilled(id: string, now: number, make = true): Bucket | null {
    this.#sweep(now);
    const { burst, perSecond } = this.options;
    let bucket = this.#buckets.get(id);
    if (!bucket) {
      if (!make) return null;
      this.#buckets.set(id, (bucket = { tokens: burst, at: now }));
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    return bucket;
  }

  /** Seconds until `bucket` holds a whole token again. */
  retryAfterSeconds(bucket: Bucket): number {
    return (1 - bucket.tokens) / this.options.perSecond;
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt <= IDLE_MS) return;
    for (const [id, bucket] of this.#buckets)
      if (now - bucket.at > IDLE_MS) this.#buckets.delete(id);
    this.#sweptAt = now;
  }
}

/**
 * A token bucket per API key (docs/http-api.md §1 `--rate-limit`, default 50/s, burst 100), per process.
 * Over the limit: 429 `rate_limited` with Retry-After. Callers without a key (an approver's signed
 * link, a login) get a bucket per client address, so one of them flooding the server does not
 * lock every approver out.
 */
export function rateLimit(
  options: RateLimitOptions,
  clientAddress: (c: Context<ServerEnv>) => string | null = () => null,
): MiddlewareHandler<ServerEnv> {
  const buckets = new TokenBuckets(options);
  return async (c, next) => {
    const id = callerId(c, clientAddress);
    const bucket = buckets.refilled(id, Date.now());
    if (bucket.tokens < 1) {
      throw new ApiProblem(
        'rate_limited',
        `more than ${options.perSecond} requests per second for this key`,
        { retryAfterSeconds: buckets.retryAfterSeconds(bucket) },
      );
    }
    bucket.tokens -= 1;
    await next();
  };
}

/** Whom a limit counts: the caller's key, or for a caller without one its address bucket. */
function callerId(
  c: Context<ServerEnv>,
  clientAddress: (c: Context<ServerEnv>) => string | null,
): string {
  return c.get('principal').keyId ?? `anonymous:${addressBucket(clientAddress(c))}`;
}

/**
 * The bucket of a caller without a key: its IPv4 address, or its IPv6 /64 — one subscriber
 * is given a whole /64, and with a bucket per address could take a fresh one per request.
 * An IPv4 address written as IPv6 (::ffff:a.b.c.d) is that IPv4 address.
 */
export function addressBucket(address: string | null): string {
  if (address === null) return 'unknown';
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * A bound on the requests one key has in flight at once (`--max-in-flight`, default 32): the
 * rate limit alone lets a key pile up slow requests (long dry-runs, `?wait`) faster than they
 * finish. Event streams are not counted: they are long by design and cost an idle socket. Over
 * the bound: 429 `rate_limited`, retry after a second.
 */
export const DEFAULT_MAX_IN_FLIGHT = 32;

export function inFlightLimit(
  max: number,
  clientAddress: (c: Context<ServerEnv>) => string | null = () => null,
): MiddlewareHandler<ServerEnv> {
  const inFlight = new Map<string, number>();
  return async (c, next) => {
    if (c.req.path.endsWith('/stream')) return next();
    const id = callerId(c, clientAddress);
    const count = inFlight.get(id) ?? 0;
    if (count >= max)
      throw new ApiProblem('rate_limited', `more than ${max} requests in flight for this key`, {
        retryAfterSeconds: 1,
      });
    inFlight.set(id, count + 1);
    try {
      await next();
    } finally {
      const left = (inFlight.get(id) ?? 1) - 1;
      if (left > 0) inFlight.set(id, left);
      else inFlight.delete(id);
    }
  };
}
