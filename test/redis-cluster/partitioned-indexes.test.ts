import { Redis } from 'ioredis';
import { afterAll, expect } from 'vitest';
import { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../src/backends/redis/store/redis-flow-store.js';
import { RedisKeys } from '../../src/backends/redis/store/redis-keys.js';
import { keySlot } from '../../src/backends/redis/key-slot.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { describeExecutionStore } from '../contracts/execution-store.contract.js';
import { describeFlowStore } from '../contracts/flow-store.contract.js';
import { REDIS_URL, redisGate, uniqueName } from '../support/services.js';

/**
 * The stores with each tenant's listing indexes split over 4 slots (`indexPartitions: 4`), on
 * the shared standalone Redis: the whole execution-store suite (its list cases check order and
 * keyset pages over the merged partitions) and the flow-store suite, plus the layout itself.
 */
const gate = await redisGate();
const prefix = uniqueName('plaita-pidx');

if (gate.available) {
  describeExecutionStore(
    'redis, 4 index partitions',
    (options) =>
      new RedisExecutionStore({ url: REDIS_URL }, { prefix, indexPartitions: 4, ...options }),
    { propertyRuns: 20 },
  );
  describeFlowStore(
    'redis, 4 index partitions',
    (options) => new RedisFlowStore({ url: REDIS_URL }, { prefix, indexPartitions: 4, ...options }),
  );

  gate.describe('partitioned listing indexes', () => {
    gate.it('spread one tenant over N slots; one partition keeps the old key names', async () => {
      const one = new RedisKeys('p');
      expect(one.tenantIndex('acme').all).toBe('p:{acme}:idx:all');
      expect(one.indexPartition('anything')).toBe(0);
      const four = new RedisKeys('p', 4);
      const slots = new Set(
        [0, 1, 2, 3].map((part) => keySlot(four.tenantIndex('acme', part).all)),
      );
      expect(slots.size).toBe(4);
      expect(four.tenantIndex('acme', 2).status('running')).toBe(
        'p:{acme:%idx2of4}:idx:status:running',
      );
      expect(() => new RedisKeys('p', 0)).toThrow(RangeError);

      const store = new RedisExecutionStore({ url: REDIS_URL }, { prefix, indexPartitions: 4 });
      const raw = new Redis(REDIS_URL);
      try {
        const tenantId = uniqueName('t');
        const keys = new RedisKeys(prefix, 4);
        for (let i = 0; i < 40; i++)
          await store.save(
            newExecutionState({ executionId: `e${i}`, tenantId, status: 'running' }),
          );
        const sizes = await Promise.all(
          [0, 1, 2, 3].map((part) => raw.zcard(keys.tenantIndex(tenantId, part).all)),
        );
        expect(sizes.every((n) => n > 0)).toBe(true);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
        const page = await store.list({ tenantId, status: 'running', limit: 100 });
        expect(page.items).toHaveLength(40);
      } finally {
        await store.close();
        raw.disconnect();
      }
    });
  });

  afterAll(async () => {
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await admin.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      admin.disconnect();
    }
  });
} else {
  gate.describe('partitioned listing indexes', () => undefined);
}
