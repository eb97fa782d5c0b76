import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { indexRepairCase } from '../../contracts/index-repair.cases.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

/** The index repair case on a single Redis (the cluster runs it in test/redis-cluster). */
const gate = await redisGate();
const prefix = uniqueName('plaita-index-repair');
let raw: Redis;
let store: RedisExecutionStore;

gate.describe('Redis listing indexes after a failed index write (single Redis)', () => {
  beforeAll(() => {
    raw = new Redis(REDIS_URL);
    store = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
  });
  afterAll(async () => {
    await store.close();
    const keys = await raw.keys(`${prefix}:*`);
    if (keys.length > 0) await raw.del(...keys);
    await raw.quit();
  });

  gate.it('the save writes nothing, and its retry writes the record and the indexes', () =>
    indexRepairCase(store, raw, prefix, 'not written'),
  );
});
