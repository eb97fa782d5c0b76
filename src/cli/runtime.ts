import { PlaitaClient } from '../client/plaita-client.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { ControlStore } from '../store/control-store.js';
import type { FlowStore } from '../store/flow-store.js';
import { backoffMs, FailureLog } from '../util/failure-log.js';
import { getDefaultLogger } from '../util/logger.js';
import { CliError, EXIT } from './exit-codes.js';
import { queueNameOption } from './queue-name.js';
import { prepareSqlitePath } from './sqlite-path.js';
import { queueRedisUrl, storeTarget, type StoreTarget } from './store-url.js';

/** Everything a durable command talks to, assembled from flags and PLAITA_* variables. */
export interface Runtime {
  store: ExecutionStore;
  flows: FlowStore;
  /** The control plane's records (keys, schedules, approvals, …) on the same backend. */
  control: ControlStore;
  queue: TaskQueue;
  client: PlaitaClient;
  registry: NodeRegistry;
  /** True when the queue is the embedded LocalQueue: this process must drive the work itself. */
  embedded: boolean;
  target: StoreTarget;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  store?: string | undefined;
  redisUrl?: string | undefined;
  queueName?: string | undefined;
  tenantId?: string | undefined;
  visibilityTimeoutMs?: number | undefined;
  /** Use the embedded queue even when a Redis URL is configured (`plaita run`). */
  embedded?: boolean;
  /**
   * A long-running process (`plaita worker`) rides out a store that is down at start, retrying;
   * a one-shot command fails at once (exit 3).
   */
  waitForServices?: boolean;
}

/**
 * The Redis stores' options from PLAITA_* variables: key prefix, index partitions (or
 * `indexPartitions` given), connect timeout.
 */
export function redisStoreOptions(indexPartitions = numberEnv('PLAITA_INDEX_PARTITIONS')): {
  prefix?: string;
  indexPartitions?: number;
  connectTimeoutMs?: number;
} {
  const prefix = process.env.PLAITA_PREFIX;
  const connectTimeoutMs = numberEnv('PLAITA_CONNECT_TIMEOUT_MS');
  return {
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    ...(prefix ? { prefix } : {}),
    ...(indexPartitions ? { indexPartitions } : {}),
  };
}

const EMBEDDED_QUEUE_FILE = './.plaita/plaita.db';

/**
 * Backends are imported on demand, so `plaita validate` never loads a database driver.
 * The queue is Redis Streams when a Redis URL is given, else the LocalQueue persisted in the
 * SQLite file (the store's own file when the store is SQLite).
 */
export async function openRuntime(
  options: RuntimeOptions,
  registry: NodeRegistry,
): Promise<Runtime> {
  const target = storeTarget(options.store);
  const queueName = queueNameOption(options.queueName);
  const closers: Array<() => Promise<void>> = [];
  const { store, flows, control } = await openStores(target, closers);
  await checkIndexLayout(store, options.waitForServices === true).catch(async (error: unknown) => {
    await closeAll(closers);
    throw error;
  });
  const redisUrl = options.embedded ? undefined : queueRedisUrl(options.redisUrl);
  const queue = await openQueue(target, redisUrl, { ...options, queueName }, closers).catch(
    async (error: unknown) => {
      // A queue that cannot open must not leave the stores' connections keeping the CLI alive.
      await closeAll(closers);
      throw error;
    },
  );
  const client = new PlaitaClient({
    store,
    flows,
    queue,
    registry,
    ...(options.tenantId ? { tenantId: options.tenantId } : {}),
  });
  return {
    store,
    flows,
    control,
    queue,
    client,
    registry,
    target,
    embedded: redisUrl === undefined,
    close: () => closeAll(closers),
  };
}

/**
 * A Redis store opened with another index-partition count than its indexes were built with is
 * refused before any command runs (a worker would index where no list reads). Redis down: a
 * one-shot command fails here (one connect timeout, not two); a worker waits for it, since it
 * could do nothing without its store anyway, and must not start unchecked.
 */
async function checkIndexLayout(store: ExecutionStore, waitForServices: boolean): Promise<void> {
  const check = (store as { checkIndexLayout?: () => Promise<void> }).checkIndexLayout;
  if (!check) return;
  const failures = new FailureLog(getDefaultLogger(), 'reaching the Redis store');
  for (;;) {
    try {
      await check.call(store);
      failures.succeeded();
      return;
    } catch (error) {
      if (!waitForServices || (error as { retryable?: unknown }).retryable !== true) throw error;
      failures.failed(error);
      await new Promise((resolve) => setTimeout(resolve, backoffMs(failures.failures, 125, 5000)));
    }
  }
}

/** The stores, each closed (last opened first) by the runtime's close(). */
function closedWith<T extends { store: Closable; flows: Closable; control: Closable }>(
  closers: Array<() => Promise<void>>,
  stores: T,
): T {
  closers.push(
    () => stores.store.close(),
    () => stores.flows.close(),
    () => stores.control.close(),
  );
  return stores;
}

interface Closable {
  close(): Promise<void>;
}

async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of [...closers].reverse()) await close().catch(() => undefined);
}

async function openStores(
  target: StoreTarget,
  closers: Array<() => Promise<void>>,
): Promise<{ store: ExecutionStore; flows: FlowStore; control: ControlStore }> {
  const connectTimeoutMs = numberEnv('PLAITA_CONNECT_TIMEOUT_MS');
  const timeouts = connectTimeoutMs === undefined ? {} : { connectTimeoutMs };
  switch (target.kind) {
    case 'memory': {
      const { MemoryExecutionStore } = await import('../backends/memory/memory-execution-store.js');
      const { MemoryFlowStore } = await import('../backends/memory/memory-flow-store.js');
      const { MemoryControlStore } = await import('../backends/memory/memory-control-store.js');
      return {
        store: new MemoryExecutionStore(),
        flows: new MemoryFlowStore(),
        control: new MemoryControlStore(),
      };
    }
    case 'sqlite': {
      prepareSqlitePath(target.path);
      const { SqliteExecutionStore } = await import('../backends/sqlite/sqlite-execution-store.js');
      const { SqliteFlowStore } = await import('../backends/sqlite/sqlite-flow-store.js');
      const { SqliteControlStore } = await import('../backends/sqlite/sqlite-control-store.js');
      return closedWith(closers, {
        store: new SqliteExecutionStore({ path: target.path }),
        flows: new SqliteFlowStore({ path: target.path }),
        control: new SqliteControlStore({ path: target.path }),
      });
    }
    case 'postgres': {
      const { PostgresExecutionStore } =
        await import('../backends/postgres/postgres-execution-store.js');
      const { PostgresFlowStore } = await import('../backends/postgres/postgres-flow-store.js');
      const { PostgresControlStore } =
        await import('../backends/postgres/postgres-control-store.js');
      return closedWith(closers, {
        store: new PostgresExecutionStore({ connectionString: target.url }, timeouts),
        flows: new PostgresFlowStore({ connectionString: target.url }, timeouts),
        control: new PostgresControlStore({ connectionString: target.url }, timeouts),
      });
    }
    case 'redis': {
      const { RedisExecutionStore } =
        await import('../backends/redis/store/redis-execution-store.js');
      const { RedisFlowStore } = await import('../backends/redis/store/redis-flow-store.js');
      const options = redisStoreOptions();
      const { RedisControlStore } = await import('../backends/redis/store/redis-control-store.js');
      return closedWith(closers, {
        store: new RedisExecutionStore({ url: target.url }, options),
        flows: new RedisFlowStore({ url: target.url }, options),
        control: new RedisControlStore({ url: target.url }, options),
      });
    }
  }
}

async function openQueue(
  target: StoreTarget,
  redisUrl: string | undefined,
  options: RuntimeOptions,
  closers: Array<() => Promise<void>>,
): Promise<TaskQueue> {
  const visibility = options.visibilityTimeoutMs ?? numberEnv('PLAITA_VISIBILITY_TIMEOUT_MS');
  const connectTimeoutMs = numberEnv('PLAITA_CONNECT_TIMEOUT_MS');
  const common = {
    ...(visibility === undefined ? {} : { visibilityTimeoutMs: visibility }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  };
  if (redisUrl) {
    const { RedisStreamQueue } = await import('../backends/redis/queue/redis-stream-queue.js');
    const stream = options.queueName;
    const partitions = numberEnv('PLAITA_QUEUE_PARTITIONS');
    const queue = new RedisStreamQueue(
      { url: redisUrl },
      { ...common, ...(stream ? { stream } : {}), ...(partitions ? { partitions } : {}) },
    );
    closers.push(() => queue.close());
    return queue;
  }
  const { LocalQueue } = await import('../backends/sqlite/queue/local-queue.js');
  const path =
    target.kind === 'sqlite'
      ? target.path
      : target.kind === 'memory'
        ? ':memory:'
        : EMBEDDED_QUEUE_FILE;
  prepareSqlitePath(path);
  // The queue opens the file at once: a file that is not a database fails here, naming the path.
  const queue = new LocalQueue({ path }, common);
  closers.push(() => queue.close());
  return queue;
}

/** The numeric PLAITA_* settings: all checked before any command acts (checkNumericSettings). */
const NUMERIC_SETTINGS = [
  'PLAITA_RUN_TIMEOUT_MS',
  'PLAITA_CONNECT_TIMEOUT_MS',
  'PLAITA_VISIBILITY_TIMEOUT_MS',
  'PLAITA_QUEUE_PARTITIONS',
  'PLAITA_INDEX_PARTITIONS',
  'PLAITA_CONCURRENCY',
  'PLAITA_MAX_DELIVERIES',
  'PLAITA_LEASE_TTL_MS',
  'PLAITA_DRAIN_TIMEOUT_MS',
  'PLAITA_METRICS_PORT',
] as const;

/**
 * A setting read late (PLAITA_RUN_TIMEOUT_MS, once the execution is already started) must not
 * fail after the command has acted: every one is read once before it does.
 */
export function checkNumericSettings(): void {
  for (const name of NUMERIC_SETTINGS) numberEnv(name);
}

export function numberEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return nonNegativeNumber(raw, `${name}=${JSON.stringify(raw)}`);
}

/**
 * A numeric setting (a variable, or a flag naming one): a setting the operator wrote and we
 * cannot read is said, exit 2 naming `setting`, never silently replaced by a default.
 */
export function nonNegativeNumber(raw: string, setting: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new CliError(`${setting}: expected a number ≥ 0`, EXIT.usage);
  return value;
}
