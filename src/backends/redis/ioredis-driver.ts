import type * as IORedis from 'ioredis';
import { loadOptionalPeer } from '../../util/optional-peer.js';

export type IORedisDriver = typeof IORedis;

let driver: IORedisDriver | undefined;

/** ioredis, loaded on first use (an optional peer dependency). */
export function ioredisDriver(requiredBy = 'the Redis backend'): IORedisDriver {
  return (driver ??= loadOptionalPeer<IORedisDriver>('ioredis', requiredBy));
}
