import { setImmediate } from 'node:timers';
import type { Cluster, Redis } from 'ioredis';
import {
  StoreClosedError,
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../errors/store-errors.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../util/connect-timeout.js';
import { toStoreError } from './classify-redis-error.js';
import { ioredisDriver } from './ioredis-driver.js';
import { isClusterUrl, parseClusterUrl, parseRedisUrl } from './redis-url.js';
import { preloadScripts } from './redis-script.js';

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
/** Cluster: wait between ioredis's own retries of TRYAGAIN / CLUSTERDOWN / a failed-over node. */
const CLUSTER_RETRY_DELAY_MS = 100;
/** Cluster: redirections and retries one command may take before it fails (transient). */
const CLUSTER_MAX_REDIRECTIONS = 16;

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
 * - Every call also has a deadline a little past `commandTimeoutMs`, over all the commands it
 *   sends: a borrowed client configured without a command timeout cannot hang us, nor can a
 *   command a borrowed client's auto-pipelining holds back behind a pipeline still waiting for
 *   its answers (ioredis's own timer only starts once a command is written). All calls of a
 *   connection share ONE timer (see {@link Deadlines}): a timer plus a Promise.race per call
 *   cost more CPU than the command itself.
 * - The commands of one tick leave an owned client in one socket write (see #batchWrites).
 * - Every driver failure goes through `toStoreError` (classify-redis-error.ts).
 */
export class RedisConnection {
  readonly client: RedisClient;
  readonly owned: boolean;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly #waiters = new Set<{ resolve: () => void; reject: (error: Error) => void }>();
  readonly #deadlines: Deadlines;
  #lastError: unknown;
  /** The socket is corked until the end of this tick (#batchWrites). */
  #corked = false;
  readonly #isCluster: boolean;

  /** A Redis Cluster: a script may touch one slot only. */
  get isCluster(): boolean {
    return this.#isCluster;
  }
  #closing: Promise<void> | undefined;

  /** The database an owned single-node client must be on (the URL's `/db`); 0 otherwise. */
  #db = 0;
  /** The connection is ready AND on its database: commands may go (always, for database 0). */
  #usable = true;
  /** The server refused the URL's database: every call fails with this, for good. */
  #refused: StoreConfigurationError | undefined;

  /** This connection's SELECT was answered with an error (ioredis names the command). */
  #selectRefused = false;

  readonly #onError = (error: unknown): void => {
    this.#lastError = error;
    if ((error as { command?: { name?: unknown } } | null)?.command?.name === 'select')
      this.#selectRefused = true;
  };
  readonly #onClose = (): void => {
    this.#selectRefused = false;
  };
  readonly #onReady = (): void => {
    this.#lastError = undefined;
    if (this.#db === 0) {
      for (const waiter of this.#waiters) waiter.resolve();
      return;
    }
    // ioredis selects the database on connect, and on a refusal (no such database) reports an
    // error and goes on, on database 0: commands wait until the server says where we are.
    this.#usable = false;
    this.#verify();
  };

  #verify(): void {
    this.#verifyDatabase().then(
      (refusal) => {
        if (refusal) {
          this.#refused = refusal;
          for (const waiter of this.#waiters) waiter.reject(refusal);
        } else {
          this.#usable = true;
          for (const waiter of this.#waiters) waiter.resolve();
        }
      },
      // No answer (a timeout, the connection going): asked again while the socket is up; a
      // connection that went is asked on its next `ready`.
      () => {
        setTimeout(() => {
          if (this.client.status === 'ready' && !this.#usable && !this.#closing) this.#verify();
        }, RECONNECT_BASE_MS).unref();
      },
    );
  }

  async #verifyDatabase(): Promise<StoreConfigurationError | undefined> {
    let selected: number;
    try {
      const info = String(await (this.client as Redis).call('CLIENT', 'INFO'));
      selected = Number(/(?:^|\s)db=(\d+)/.exec(info)?.[1]);
    } catch (error) {
      if ((toStoreError(error, 'database check') as { retryable?: boolean }).retryable) throw error;
      // Not allowed to ask (an ACL, a Redis-compatible server): SELECT's own answer decides.
      selected = this.#selectRefused ? -1 : this.#db;
    }
    if (selected === this.#db) return undefined;
    return new StoreConfigurationError(
      `the Redis server refused database ${this.#db} named in the URL (its \`databases\` ` +
        `setting bounds the index: 0–15 by default)`,
    );
  }

  /** `requiredBy` names the store or queue, for the message when ioredis is not installed. */
  constructor(target: RedisTarget, options: RedisConnectionOptions = {}, requiredBy?: string) {
    this.connectTimeoutMs = positive(
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      'connectTimeoutMs',
    );
    this.commandTimeoutMs = positive(
      options.commandTimeoutMs ?? this.connectTimeoutMs,
      'commandTimeoutMs',
    );
    // ioredis's commandTimeout normally fires first; the deadline only catches what it cannot.
    this.#deadlines = new Deadlines(this.commandTimeoutMs + 100);
    if ('client' in target) {
      this.client = target.client;
      this.owned = false;
    } else {
      this.client = isClusterUrl(target.url)
        ? this.#cluster(target.url, requiredBy)
        : this.#single(target.url, requiredBy);
      this.owned = true;
    }
    // Also keeps ioredis from printing "Unhandled error event" on every failed reconnect.
    this.client.on('error', this.#onError);
    this.client.on('ready', this.#onReady);
    this.client.on('close', this.#onClose);
    // ioredis marks its own instances: a borrowed client built with another copy of ioredis
    // (a nested install) is no instance of ours, and a script spanning slots would fail there.
    this.#isCluster =
      this.client instanceof ioredisDriver(requiredBy).Cluster ||
      (this.client as { isCluster?: unknown }).isCluster === true;
    if (this.owned && this.#isCluster) this.client.on('+node', this.#onNode);
  }

  /**
   * A cluster node joined the slot map (at start, or a replica promoted): load the scripts on
   * it now. That also opens its connection (ioredis connects cluster nodes on first use), so
   * the first command of a store or queue on any master does not pay for the connect.
   */
  readonly #onNode = (node: Redis): void => {
    preloadScripts(node).catch(() => undefined);
  };

  #single(url: string, requiredBy: string | undefined): Redis {
    this.#db = parseRedisUrl(url).db;
    this.#usable = this.#db === 0;
    const { Redis } = ioredisDriver(requiredBy);
    return new Redis(url, {
      lazyConnect: true, // building a store opens nothing; the first operation connects
      // No auto-pipelining: `#run` corks the socket instead (see #batchWrites).
      ...this.#nodeOptions(),
    });
  }

  /**
   * `redis+cluster://…`: ioredis's Cluster client under the same rules. Every node connection
   * gets the single-node options (no offline queue, no retry of a command in flight, no
   * resend, connect and command timeouts); the cluster itself has no offline queue either (a
   * command while the slot map is being rebuilt fails at once, classified transient), and
   * reconnects in the background with the same capped backoff. ioredis follows MOVED/ASK
   * itself and retries TRYAGAIN/CLUSTERDOWN a few times ({@link CLUSTER_RETRY_DELAY_MS}
   * apart, at most {@link CLUSTER_MAX_REDIRECTIONS}); the call's deadline bounds all of it.
   */
  #cluster(url: string, requiredBy: string | undefined): Cluster {
    const { Cluster } = ioredisDriver(requiredBy);
    const parsed = parseClusterUrl(url);
    // The cluster owns its nodes' offline queue and reconnects; the rest applies per node.
    const { enableOfflineQueue, retryStrategy: _, ...nodeOptions } = this.#nodeOptions();
    return new Cluster(parsed.nodes, {
      lazyConnect: true,
      enableOfflineQueue,
      enableReadyCheck: true,
      maxRedirections: CLUSTER_MAX_REDIRECTIONS,
      retryDelayOnMoved: 0,
      retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
      slotsRefreshTimeout: this.connectTimeoutMs,
      clusterRetryStrategy: (attempt) => reconnectDelay(attempt, this.connectTimeoutMs),
      redisOptions: {
        ...nodeOptions,
        ...(parsed.username === undefined ? {} : { username: parsed.username }),
        ...(parsed.password === undefined ? {} : { password: parsed.password }),
        ...(parsed.tls ? { tls: {} } : {}),
      },
    });
  }

  /** What every owned connection to one node is built with (see the class comment). */
  #nodeOptions() {
    return {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: this.connectTimeoutMs,
      commandTimeout: this.commandTimeoutMs,
      // After a refused connect the socket never closes again, and ioredis's wait for it (2 s by
      // default, a timer nothing unrefs) kept every failed CLI command alive that long.
      disconnectTimeout: 200,
      retryStrategy: (attempt: number) => reconnectDelay(attempt, this.connectTimeoutMs),
    };
  }

  /**
   * Runs driver calls as one store step: waits for readiness, bounds the time, and turns any
   * failure into a store error. `what` names the step in messages (`save of e1`).
   */
  call<T>(what: string, command: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.#closing)
      return Promise.reject(new StoreClosedError(`the Redis store is closed (${what})`));
    // The hot path is one status check: only a connection that is not ready yet waits.
    if (this.client.status !== 'ready' || !this.#usable) return this.#callWhenReady(what, command);
    return this.#run(what, command);
  }

  async #callWhenReady<T>(what: string, command: (client: RedisClient) => Promise<T>): Promise<T> {
    await this.#ready(what);
    return this.#run(what, command);
  }

  /** Runs `command` under the shared deadline; every failure arrives through toStoreError. */
  #run<T>(what: string, command: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.owned) this.#batchWrites();
    return new Promise<T>((resolve, reject) => {
      const call = this.#deadlines.start(what, reject);
      let running: Promise<T>;
      try {
        running = command(this.client);
      } catch (error) {
        this.#deadlines.finish(call);
        reject(toStoreError(error, what));
        return;
      }
      // A late answer after the deadline won is dropped here (handled, never unhandled).
      running.then(
        (value) => {
          if (this.#deadlines.finish(call)) resolve(value);
        },
        (error: unknown) => {
          if (this.#deadlines.finish(call)) reject(toStoreError(error, what));
        },
      );
    });
  }

  /**
   * Concurrent executions' commands issued in one turn of the event loop go out as one write:
   * the first command corks the socket, the turn's check phase (setImmediate) uncorks it, and
   * Node writes everything buffered in between with one writev. Not the end of the tick: the
   * replies of one turn arrive in several socket reads, and each read's continuations would
   * otherwise be a write of their own (a syscall costs as much as a checkpoint's encoding
   * here). A worker with 50 executions in flight pays one syscall per turn, not per command.
   * Unlike ioredis's auto-pipelining this adds no promise, pipeline or timer per command, and
   * never holds commands back until the previous batch is answered. Owned clients only: a
   * borrowed client's socket is not ours to cork. A cluster client corks every node's socket:
   * a turn's commands go out as one write per node.
   */
  #batchWrites(): void {
    if (this.#corked) return;
    const streams = this.#streams();
    if (streams.length === 0) return;
    for (const stream of streams) stream.cork();
    this.#corked = true;
    // node:timers' own function: a test's fake timers (they patch the global) cannot hold it.
    setImmediate(() => {
      this.#corked = false;
      for (const stream of streams) stream.uncork();
    });
  }

  /** The writable sockets commands go out on: the one of a single node, or every cluster node's. */
  #streams(): Array<Redis['stream']> {
    const nodes = this.#isCluster ? (this.client as Cluster).nodes('all') : [this.client as Redis];
    const streams: Array<Redis['stream']> = [];
    for (const node of nodes) {
      const stream = node.stream as Redis['stream'] | undefined;
      if (stream?.writable) streams.push(stream);
    }
    return streams;
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
    this.client.off('close', this.#onClose);
    this.client.off('+node', this.#onNode);
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
    if (this.#refused) throw this.#refused;
    const { status } = this.client;
    if (status === 'ready' && this.#usable) return;
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
      if (this.client.status === 'ready' && this.#usable) waiter.resolve();
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

/** One call in flight: when it must have settled, and how to fail it if not. */
interface PendingCall {
  readonly deadline: number;
  readonly what: string;
  readonly reject: (error: Error) => void;
}

/**
 * Deadlines of the calls in flight on one connection, all `limitMs` long, served by one timer.
 * Equal lengths make start order deadline order: the Set (insertion-ordered) is a FIFO whose
 * head expires first, so the timer only ever waits for the head. Starting and finishing a call
 * is a Set add/delete; the timer is re-armed when it fires, not per call.
 */
class Deadlines {
  readonly #pending = new Set<PendingCall>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly limitMs: number) {}

  start(what: string, reject: (error: Error) => void): PendingCall {
    const call: PendingCall = { deadline: performance.now() + this.limitMs, what, reject };
    this.#pending.add(call);
    if (this.#timer === undefined) this.#timer = this.#arm(this.limitMs);
    return call;
  }

  /** False when the call already timed out (its outcome must then be dropped). */
  finish(call: PendingCall): boolean {
    return this.#pending.delete(call);
  }

  #arm(delayMs: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#expire(), delayMs);
    timer.unref(); // a call in flight keeps the process alive through its socket, not this timer
    return timer;
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now(); // monotonic: a wall-clock jump neither fires nor delays it
    for (const call of this.#pending) {
      if (call.deadline > now) {
        this.#timer = this.#arm(Math.ceil(call.deadline - now));
        return;
      }
      this.#pending.delete(call);
      const error = Object.assign(new Error(`no answer within ${this.limitMs} ms (${call.what})`), {
        code: 'ETIMEDOUT',
      });
      call.reject(toStoreError(error, call.what));
    }
  }
}
