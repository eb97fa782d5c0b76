import { Redis, type Cluster } from 'ioredis';
import { StoreUnavailableError } from '../../errors.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../execution-store.js';
import { toStoreError } from './classify-redis-error.js';
import { StoreClosedError } from './redis-errors.js';

export type RedisClient = Redis | Cluster;

/** `{url}`: the store builds and owns its client. `{client}`: borrowed, never closed by us. */
export type RedisTarget = { url: string } | { client: RedisClient };

export interface RedisConnectionOptions {
  /** An unreachable server makes an operation reject within this (default 5000). */
  connectTimeoutMs?: number;
  /** A server that accepted a command but does not answer makes it reject after this (default: connectTimeoutMs). */
  commandTimeoutMs?: number;
}

/** Reconnect backoff: exponential from this, capped (see `reconnectDelay`). */
const RECONNECT_BASE_MS = 50;

/**
 * The never-hang, never-confuse layer between the stores and ioredis.
 *
 * - An owned client is built with no offline queue (a command sent while disconnected fails
 *   at once instead of waiting for a reconnect), `maxRetriesPerRequest: 0` (a command in
 *   flight when the socket drops fails at once), no automatic resend of unanswered commands
 *   after a reconnect (a write the caller saw fail must not be replayed behind its back),
 *   ioredis `connectTimeout` and `commandTimeout`, and a retry strategy that keeps reconnecting
 *   in the background with capped backoff: when the server is back, the same store works.
 * - Every call first waits for `ready` for at most `connectTimeoutMs`, then rejects with
 *   StoreUnavailableError whose `cause` is the last connection error.
 * - Every call is also raced against a timer a little past `commandTimeoutMs`: a borrowed
 *   client configured without a command timeout cannot hang us either.
 * - Every driver failure goes through `toStoreError` (classify-redis-error.ts).
 */
export class RedisConnection {
  readonly client: RedisClient;
  readonly owned: boolean;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly #waiters = new Set<{ resolve: () => void; reject: (error: Error) => void }>();
  #lastError: unknown;
  #closing: Promise<void> | undefined;

  readonly #onError = (error: unknown): void => {
    this.#lastError = error;
  };
  readonly #onReady = (): void => {
    this.#lastError = undefined;
    for (const waiter of this.#waiters) waiter.resolve();
  };

  constructor(target: RedisTarget, options: RedisConnectionOptions = {}) {
    this.connectTimeoutMs = positive(
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      'connectTimeoutMs',
    );
    this.commandTimeoutMs = positive(
      options.commandTimeoutMs ?? this.connectTimeoutMs,
      'commandTimeoutMs',
    );
    if ('client' in target) {
      this.client = target.client;
      this.owned = false;
    } else {
      this.client = new Redis(target.url, {
        lazyConnect: true, // building a store opens nothing; the first operation connects
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        connectTimeout: this.connectTimeoutMs,
        commandTimeout: this.commandTimeoutMs,
        retryStrategy: (attempt) => reconnectDelay(attempt, this.connectTimeoutMs),
      });
      this.owned = true;
    }
    // Also keeps ioredis from printing "Unhandled error event" on every failed reconnect.
    this.client.on('error', this.#onError);
    this.client.on('ready', this.#onReady);
  }

  /**
   * Runs driver calls as one store step: waits for readiness, bounds the time, and turns any
   * failure into a store error. `what` names the step in messages (`save of e1`).
   */
  async call<T>(what: string, command: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.#closing) throw new StoreClosedError(`the Redis store is closed (${what})`);
    await this.#ready(what);
    try {
      return await this.#bounded(command(this.client), what);
    } catch (error) {
      throw toStoreError(error, what);
    }
  }

  /** Stops listening; quits and disconnects an owned client (a borrowed one stays open). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    for (const waiter of this.#waiters)
      waiter.reject(new StoreClosedError('the Redis store was closed'));
    this.client.off('ready', this.#onReady);
    if (!this.owned) {
      this.client.off('error', this.#onError);
      return;
    }
    // QUIT is bounded by the command timeout; disconnect() then stops any reconnect loop.
    if (this.client.status === 'ready') await this.client.quit().catch(() => undefined);
    this.client.disconnect();
    this.client.off('error', this.#onError);
  }

  async #ready(what: string): Promise<void> {
    const { status } = this.client;
    if (status === 'ready') return;
    if (status === 'end') {
      if (!this.owned)
        throw new StoreClosedError(`the borrowed Redis client was closed by its owner (${what})`);
      this.client.connect().catch(() => undefined);
    }
    if (status === 'wait') this.client.connect().catch(() => undefined); // lazyConnect: first use
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => settle(() => resolve()),
        reject: (error: Error) => settle(() => reject(error)),
      };
      const timer = setTimeout(
        () => waiter.reject(this.#notReady(what)),
        readyBudget(this.connectTimeoutMs),
      );
      const settle = (finish: () => void): void => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        finish();
      };
      this.#waiters.add(waiter);
      if (this.client.status === 'ready') waiter.resolve();
    });
  }

  #notReady(what: string): StoreUnavailableError {
    const last = this.#lastError;
    const reason = last instanceof Error ? `: ${last.message}` : '';
    const cause =
      last ??
      Object.assign(new Error(`Redis not ready within ${this.connectTimeoutMs} ms`), {
        code: 'ETIMEDOUT',
      });
    return new StoreUnavailableError(
      `Redis not ready within ${this.connectTimeoutMs} ms (status ${this.client.status}) during ${what}${reason}`,
      { cause },
    );
  }

  /** ioredis's commandTimeout normally fires first; this only catches what it cannot. */
  #bounded<T>(promise: Promise<T>, what: string): Promise<T> {
    const limitMs = this.commandTimeoutMs + 100;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = Object.assign(new Error(`no answer within ${limitMs} ms (${what})`), {
          code: 'ETIMEDOUT',
        });
        reject(error);
      }, limitMs);
    });
    promise.catch(() => undefined); // a late rejection after the timer won is not unhandled
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

/**
 * How long an operation waits for `ready`: a hair under connectTimeoutMs, so that with timer
 * lateness and the rejection's own path the caller still sees it within connectTimeoutMs.
 */
function readyBudget(connectTimeoutMs: number): number {
  return Math.max(1, connectTimeoutMs - Math.min(50, Math.floor(connectTimeoutMs * 0.05)));
}

/** Capped exponential backoff; the cap stays well under connectTimeoutMs so a returning server is found in time. */
export function reconnectDelay(attempt: number, connectTimeoutMs: number): number {
  const cap = Math.min(1000, Math.max(50, Math.floor(connectTimeoutMs / 4)));
  return Math.min(RECONNECT_BASE_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 10), cap);
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}
