import { PlaitaError } from '../../errors/plaita-error.js';
import { StoreUnavailableError, RedisCommandError } from '../../errors/store-errors.js';

/**
 * The one place a Redis driver error is classified — by code, never by message text:
 *
 * - `unavailable` (→ StoreUnavailableError, retryable): the server could not be reached or
 *   answered with a transient condition. Node socket codes; ioredis's connection-level error
 *   classes; Redis replies whose code (the reply's first word) says "not now".
 * - `noscript`: the script cache was flushed or the node failed over; the loader reloads.
 * - `permanent` (→ RedisCommandError, not retryable): the server refused the command itself
 *   (`WRONGTYPE`, `ERR` from a script, …). Retrying would fail the same way.
 */
export type RedisErrorKind = 'unavailable' | 'noscript' | 'permanent';

/** Socket-level failures: the store is down or unreachable, not broken. */
const TRANSPORT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ECONNABORTED',
  'ENOTCONN',
  'EAI_AGAIN',
]);

/** ioredis's own connection-level errors, which carry no `code` but a dedicated class name. */
const DRIVER_TRANSPORT_NAMES: ReadonlySet<string> = new Set([
  'MaxRetriesPerRequestError', // the connection dropped with the command in flight
  'AbortError', // a pipeline/transaction cut off by a connection close
  'ClusterAllFailedError',
]);

/**
 * Reply codes of a server that is alive but cannot serve right now: loading its dataset,
 * a replica, a cluster without quorum, a long script running, failing persistence or full
 * memory (both heal when an operator or the TTLs free space). On Redis Cluster also a slot
 * that moved or is moving (`MOVED`/`ASK`, which ioredis follows itself until its redirection
 * budget is spent) and a multi-key command caught in a resharding (`TRYAGAIN`): the slot map
 * is refreshed and the next attempt goes to the right node.
 */
const TRANSIENT_REPLY_CODES: ReadonlySet<string> = new Set([
  'LOADING',
  'READONLY',
  'CLUSTERDOWN',
  'MOVED',
  'ASK',
  'MASTERDOWN',
  'TRYAGAIN',
  'BUSY',
  'NOREPLICAS',
  'MISCONF',
  'OOM',
]);

export function classifyRedisError(error: unknown): RedisErrorKind {
  if (typeof error !== 'object' || error === null) return 'permanent';
  const replyCode = redisReplyCode(error);
  if (replyCode !== undefined) {
    if (replyCode === 'NOSCRIPT') return 'noscript';
    return TRANSIENT_REPLY_CODES.has(replyCode) ? 'unavailable' : 'permanent';
  }
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && TRANSPORT_CODES.has(code)) return 'unavailable';
  if (typeof name === 'string' && DRIVER_TRANSPORT_NAMES.has(name)) return 'unavailable';
  // ioredis reports its client-side transport states — the command timeout, a stream that is
  // not writeable while the offline queue is off, a connection closed under the command — as
  // plain `Error`s without a code. The server's refusals arrive as ReplyError (above),
  // programming errors as TypeError/RangeError/…, and system errors carry a code (an unknown
  // one stays permanent), so a plain codeless Error from the driver is its transport by
  // construction. Only driver calls are classified (see RedisConnection).
  if (code === undefined && Object.getPrototypeOf(error) === Error.prototype) return 'unavailable';
  return 'permanent';
}

/**
 * An error reply a batched script caught for one of its items (`pcall`, as save-states.lua
 * does): named as the driver names a reply, so it is classified as it would have been alone.
 */
export class CaughtReplyError extends Error {
  override readonly name = 'ReplyError';
}

/** The code of a Redis error reply (its first word), or undefined when it is not a reply. */
export function redisReplyCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (name !== 'ReplyError' || typeof message !== 'string') return undefined;
  const word = /^[A-Z][A-Z_-]*/.exec(message);
  return word?.[0];
}

/**
 * The error a store operation rejects with. PlaitaErrors pass through untouched; `what` names
 * the operation for the message (`save of execution e1`).
 */
export function toStoreError(error: unknown, what: string): Error {
  if (error instanceof PlaitaError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  switch (classifyRedisError(error)) {
    case 'unavailable':
      return new StoreUnavailableError(`Redis unavailable during ${what}: ${detail}`, {
        cause: error,
      });
    case 'noscript':
    case 'permanent':
      return new RedisCommandError(`Redis refused ${what}: ${detail}`, {
        cause: error,
        redisCode: redisReplyCode(error),
      });
  }
}
