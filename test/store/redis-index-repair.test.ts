import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { newExecutionState } from '../../src/state/execution-state.js';
import { RedisExecutionStore } from '../../src/store/redis/redis-execution-store.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { REDIS_URL, redisGate, uniqueName } from '../support/services.js';

/**
 * The Redis store writes the record, then the listing indexes (another slot). When the index
 * update fails after the record changed status, the save rejects; its retry — the same state,
 * so the stored status already matches — must still repair the indexes, or `list` by status
 * would miss the execution until its next change of status (a suspended one: for days).
 */
const gate = await redisGate();
const prefix = uniqueName('plaita-index-repair');
let raw: Redis;
let store: RedisExecutionStore;

gate.describe('Redis listing indexes after a failed index update', () => {
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

  gate.it('the retry of the same save repairs them', async () => {
    const running = newExecutionState({ executionId: 'e1', tenantId: 't1', status: 'running' });
    await store.save(running);
    const suspendedIndex = new RedisKeys(prefix).tenantIndex('t1').status('suspended');
    // The index update of the next save fails after the record was written: its status index
    // is not a sorted set (WRONGTYPE), as a server lost between the two commands would fail it.
    await raw.set(suspendedIndex, 'not a sorted set');
    const suspended = { ...running, status: 'suspended' as const, version: 1 };
    await expect(store.save(suspended)).rejects.toThrow();
    expect((await store.load('e1', { tenantId: 't1' }))?.status).toBe('suspended');
    await raw.del(suspendedIndex);

    await store.save(suspended); // the caller's retry: same status as stored
    const listed = await store.list({ tenantId: 't1', status: 'suspended' });
    expect(listed.items.map((i) => i.executionId)).toEqual(['e1']);
    expect((await store.list({ tenantId: 't1', status: 'running' })).items).toEqual([]);
  });
});
