import { Redis } from 'ioredis';
import { PlaitaClient } from '../../../src/client/plaita-client.js';
import { defaultRegistry, defineNode } from '../../../src/index.js';
import type { NodeRegistry } from '../../../src/nodes/node-registry.js';
import { RedisStreamQueue } from '../../../src/backends/redis/queue/redis-stream-queue.js';
import type { ExecutionStore } from '../../../src/store/execution-store.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../../src/backends/redis/store/redis-flow-store.js';
import { silentLogger } from '../../../src/util/logger.js';
import { FlowWorker, type FlowWorkerOptions } from '../../../src/worker/flow-worker.js';
import { uniqueName } from '../../support/services.js';

/**
 * An isolated distributed runtime on a Redis server: its own key prefix and stream, a client,
 * and workers built on demand. Side effects of test nodes are counted in Redis, outside the
 * execution state, so a test sees how many times a node really ran.
 */
export function redisRuntime(url: string, options: { visibilityTimeoutMs?: number } = {}) {
  const prefix = uniqueName('plt');
  const stream = `${prefix}:tasks`;
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 1000;
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
  const store = new RedisExecutionStore({ url }, { prefix, connectTimeoutMs: 2000 });
  const flows = new RedisFlowStore({ url }, { prefix, connectTimeoutMs: 2000 });
  const queue = new RedisStreamQueue(
    { url },
    { prefix, stream, visibilityTimeoutMs, connectTimeoutMs: 2000 },
  );
  const registry = testRegistry(redis, prefix);
  const client = new PlaitaClient({ store, flows, queue, registry });
  const workers: FlowWorker[] = [];
  const worker = (extra: Partial<FlowWorkerOptions> = {}): FlowWorker => {
    const w = new FlowWorker({
      store,
      flows,
      queue,
      registry,
      concurrency: 8,
      pollBlockMs: 50,
      visibilityTimeoutMs,
      leaseTtlMs: visibilityTimeoutMs,
      conflictDelayMs: 50,
      logger: silentLogger,
      ...extra,
    });
    workers.push(w);
    w.start();
    return w;
  };
  const runs = async (executionId: string, nodeId: string): Promise<number> =>
    Number((await redis.get(`${prefix}:runs:${executionId}:${nodeId}`)) ?? 0);
  const close = async (): Promise<void> => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([store.close(), flows.close(), queue.close()]);
    await deletePrefix(redis, prefix);
    redis.disconnect();
  };
  return { prefix, stream, redis, store, flows, queue, registry, client, worker, runs, close };
}

/** Test cleanup of the shared server: only this run's own keys (SCAN is fine in test tooling). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

export function testRegistry(redis: Redis, prefix: string): NodeRegistry {
  const count = (ctx: { executionId: string; nodeId: string }) =>
    redis.incr(`${prefix}:runs:${ctx.executionId}:${ctx.nodeId}`);
  return (
    defaultRegistry
      .copy()
      .register(
        defineNode({
          type: 'sleep',
          async run(ctx) {
            await count(ctx);
            const ms = Number((ctx.def as Record<string, unknown>).ms ?? 20);
            await new Promise<void>((resolve, reject) => {
              const timer = setTimeout(resolve, ms);
              ctx.signal.addEventListener('abort', () => {
                clearTimeout(timer);
                reject(new Error('aborted'));
              });
            });
            return { visit: ctx.visit, key: ctx.idempotencyKey };
          },
        }),
      )
      // Known here so flows validate; only the worker processes of the chaos tests really die.
      .register(
        defineNode({
          type: 'suicide',
          run: () => Promise.reject(new Error('suicide only runs in worker processes')),
        }),
      )
      .register(
        defineNode({
          type: 'die-on-resume',
          suspending: true,
          run: () => ({ event_type: 'go', event_filter: {}, is_async: true, status: 'pending' }),
          resume: () => Promise.reject(new Error('only worker processes die on resume')),
        }),
      )
      .register(
        defineNode({
          type: 'leaky',
          run: async (ctx) => (await count(ctx), { client: () => 'not storable' }),
        }),
      )
      .register(
        defineNode({
          type: 'rich',
          run: async (ctx) => (
            await count(ctx),
            { at: new Date('2026-01-02T03:04:05.678Z'), tags: new Set([1, 2]) }
          ),
        }),
      )
  );
}

/** A store that fails its first `failures` saves with StoreUnavailableError, then works. */
export function flakyStore(
  store: ExecutionStore,
  failures: number,
): ExecutionStore & { failed: number } {
  let failed = 0;
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'failed') return failed;
      if (property === 'save') {
        return async (...args: Parameters<ExecutionStore['save']>) => {
          if (failed < failures) {
            failed++;
            const { StoreUnavailableError } = await import('../../../src/errors/store-errors.js');
            throw new StoreUnavailableError('injected: the store is down');
          }
          return target.save(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  }) as ExecutionStore & { failed: number };
}

export const chain = (nodes: Array<Record<string, unknown> & { id: string }>) => ({
  flow_id: 'chain',
  nodes: [
    { type: 'start', id: 'start', next: nodes[0]?.id ?? 'end' },
    ...nodes.map((n, i) => ({ ...n, next: nodes[i + 1]?.id ?? 'end' })),
    { type: 'end', id: 'end', output: '$NODE' },
  ],
});
