import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStreamQueue } from '../../src/backends/redis/queue/redis-stream-queue.js';
import { partitionKeys } from '../../src/backends/redis/queue/redis-stream-keys.js';
import { RedisControlStore } from '../../src/backends/redis/store/redis-control-store.js';
import { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../src/backends/redis/store/redis-flow-store.js';
import { describeControlStore } from '../contracts/control-store.contract.js';
import { describeExecutionStore } from '../contracts/execution-store.contract.js';
import { describeFlowStore } from '../contracts/flow-store.contract.js';
import { indexRebuildCase } from '../contracts/index-rebuild.cases.js';
import { indexRepairCase } from '../contracts/index-repair.cases.js';
import { describeTaskQueue, type TaskQueueHarness } from '../contracts/task-queue.contract.js';
import {
  redisClusterGate,
  startRedisCluster,
  type LocalRedisCluster,
} from '../support/redis-cluster.js';
import { uniqueName } from '../support/services.js';

/**
 * The shared conformance suites of the Redis stores and the queue, run on a real local Redis
 * Cluster (3 masters + 3 replicas) through `redis+cluster://` URLs: a script whose keys span
 * two slots would fail here with CROSSSLOT, a command sent to the wrong master with MOVED. The
 * execution store runs with one and with 3 index partitions per tenant, the queue unpartitioned
 * and with 6 partitions spread over the masters.
 */
const gate = redisClusterGate();
let cluster: LocalRedisCluster | undefined;
const prefix = uniqueName('plaita-cluster');

gate.describe('Redis Cluster: the shared suites', () => {
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  const url = (): string => cluster!.url;

  // Stores are connected before a case uses them: the cases' short TTLs (50–150 ms) count
  // from the save, and must measure the store, not the cluster client's slot discovery.
  const warm = async <S extends { load(id: string): Promise<unknown> }>(store: S): Promise<S> => {
    await store.load('warm-up');
    return store;
  };
  describeExecutionStore(
    'redis cluster',
    (options) => warm(new RedisExecutionStore({ url: url() }, { prefix, ...options })),
    { propertyRuns: 20 },
  );
  describeExecutionStore(
    'redis cluster, 3 index partitions',
    (options) =>
      // Its own prefix: one prefix's indexes have one layout (index-layout.ts).
      warm(
        new RedisExecutionStore(
          { url: url() },
          { prefix: `${prefix}-p3`, indexPartitions: 3, ...options },
        ),
      ),
    { propertyRuns: 10 },
  );
  describeFlowStore(
    'redis cluster',
    (options) => new RedisFlowStore({ url: url() }, { prefix, ...options }),
  );
  describeControlStore(
    'redis cluster',
    async (options) => {
      const store = new RedisControlStore({ url: url() }, { prefix, ...options });
      await store.list({ collection: 'schedules', tenant: 'warm-up' });
      return store;
    },
    { sharedBackend: true },
  );

  it("one tick's commands reach each master as one write, not one per command", async () => {
    const store = await warm(new RedisExecutionStore({ url: url() }, { prefix }));
    try {
      const masters = (await cluster!.masters()).map((m) => cluster!.admin(m.port));
      const readsProcessed = async (): Promise<number> => {
        let total = 0;
        for (const admin of masters)
          total += Number(/total_reads_processed:(\d+)/.exec(await admin.info('stats'))![1]);
        return total;
      };
      const before = await readsProcessed();
      // 90 loads of executions spread over every slot, all issued in one tick.
      await Promise.all(Array.from({ length: 90 }, (_, i) => store.load(`tick-${i}`)));
      // The admin INFO calls are reads too (3 before and 3 here), and a replica's REPLCONF ACK
      // may land in between; uncorked, this was 49 reads; corked, 6.
      expect((await readsProcessed()) - before).toBeLessThan(20);
      for (const admin of masters) admin.disconnect();
    } finally {
      await store.close();
    }
  });

  it.each(['retry', 'background'] as const)(
    'a status change whose index write failed is re-indexed (%s)',
    async (repair) => {
      const store = await warm(new RedisExecutionStore({ url: url() }, { prefix }));
      const raw = new Cluster(nodesOf(url()), { redisOptions: { maxRetriesPerRequest: 1 } });
      try {
        await indexRepairCase(store, raw, prefix, 'kept', repair);
      } finally {
        await store.close();
        await raw.quit();
      }
    },
  );

  it('a changed index-partition count is refused until reindexed, on every master', async () => {
    const own = `${prefix}-rx`;
    const masters = (await cluster!.masters()).map((m) => cluster!.admin(m.port));
    const keysUnder = async (under: string): Promise<string[]> => {
      const found: string[] = [];
      for (const admin of masters) {
        let cursor = '0';
        do {
          const [next, keys] = await admin.scan(cursor, 'MATCH', `${under}:*`, 'COUNT', 1000);
          found.push(...keys);
          cursor = next;
        } while (cursor !== '0');
      }
      return found;
    };
    try {
      await indexRebuildCase(
        (indexPartitions) =>
          new RedisExecutionStore({ url: url() }, { prefix: own, indexPartitions }),
        keysUnder,
        own,
      );
    } finally {
      for (const admin of masters) admin.disconnect();
    }
  });

  for (const partitions of [1, 6]) {
    describeTaskQueue(
      `RedisStreamQueue on a cluster, ${partitions} partition${partitions === 1 ? '' : 's'}`,
      () => Promise.resolve(clusterQueueHarness(url(), partitions)),
      undefined,
      { globalOrder: partitions === 1, exactDeadLetterCap: partitions === 1 },
    );
  }
});

/** One isolated queue (its own key prefix) on the cluster; raw access through a Cluster client. */
function clusterQueueHarness(url: string, partitions: number): TaskQueueHarness {
  const queuePrefix = `${uniqueName('plaita_cluster_queue')}:`;
  const keys = partitionKeys('plaita:tasks', queuePrefix, partitions);
  const raw = new Cluster(nodesOf(url), { redisOptions: { maxRetriesPerRequest: 1 } });
  const queues: RedisStreamQueue[] = [];
  return {
    open: (options = {}) => {
      const queue = new RedisStreamQueue({ url }, { prefix: queuePrefix, partitions, ...options });
      queues.push(queue);
      return queue;
    },
    // Foreign writes land in the first partition: one writer, one stream, their own order.
    injectRaw: async (payload) => {
      await raw.xadd(keys[0]!.stream, '*', 'payload', payload);
    },
    storedMessages: async () => {
      const lengths = await Promise.all(keys.map((k) => raw.xlen(k.stream)));
      return lengths.reduce((a, b) => a + b, 0);
    },
    close: async () => {
      await Promise.all(queues.map((q) => q.close()));
      // Each key alone: a multi-key DEL must not span slots on a cluster.
      await Promise.all(keys.flatMap((k) => Object.values(k).map((key) => raw.del(key))));
      await raw.quit();
    },
  };
}

/** The nodes a `redis+cluster://` URL names, for a raw Cluster client. */
function nodesOf(url: string): { host: string; port: number }[] {
  return url
    .replace(/^redis\+cluster:\/\//, '')
    .split(',')
    .map((address) => ({ host: address.split(':')[0]!, port: Number(address.split(':')[1]) }));
}
