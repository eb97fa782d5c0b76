import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { FenceRejectedError } from '../../src/errors/store-errors.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { RedisKeys } from '../../src/backends/redis/store/redis-keys.js';
import { REDIS_URL, redisGate, uniqueName } from '../support/services.js';

/**
 * docs/scaling.md "Why that is safe": a failover that loses a lease acquisition (asynchronous
 * replication) must not let the promoted replica hand the same fencing generation to another
 * worker. Simulated on one Redis by rewriting the lease fields back to what the replica had.
 */
const gate = await redisGate();
const prefix = uniqueName('plaita-fence');
let raw: Redis;
let store: RedisExecutionStore;

gate.describe('the fence across a failover that lost an acquisition', () => {
  beforeAll(() => {
    raw = new Redis(REDIS_URL);
    store = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
  });
  afterAll(async () => {
    await store.close();
    const keys = new RedisKeys(prefix).execution('default', 'e1');
    await raw.del(keys.header, keys.nodes);
    await raw.quit();
  });

  gate.it('the next holder gets another generation; the stale holder is fenced out', async () => {
    const state = newExecutionState({ executionId: 'e1', status: 'running' });
    await store.save(state);
    const header = new RedisKeys(prefix).execution('default', 'e1').header;
    // What the replica holds: generation 5 of a worker whose lease has expired.
    const replica = { leaseGen: '5', leaseOwner: 'x', leaseExpiresAt: '1' };
    await raw.hset(header, replica);

    const a = await store.acquireLease('e1', { owner: 'a', ttlMs: 30_000 });
    // The master dies before replicating A's acquisition; the replica is promoted.
    await raw.hset(header, replica);
    // A promotion takes at least cluster-node-timeout (seconds); here a few ms, so the new
    // master's clock never reads the millisecond A's acquisition read (docs/scaling.md).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await store.acquireLease('e1', { owner: 'b', ttlMs: 30_000 });

    expect(a!.generation).toBeGreaterThan(5);
    expect(b!.generation).not.toBe(a!.generation); // a counter would have given both 6
    await expect(
      store.save({ ...state, version: 1 }, { fence: { generation: a!.generation } }),
    ).rejects.toBeInstanceOf(FenceRejectedError);
    expect(
      await store.renewLease('e1', { owner: 'a', generation: a!.generation, ttlMs: 1000 }),
    ).toBe(false);
    await store.save({ ...state, version: 1 }, { fence: { generation: b!.generation } });
    // The holder re-acquiring still counts up by one.
    const again = await store.acquireLease('e1', { owner: 'b', ttlMs: 30_000 });
    expect(again!.generation).toBe(b!.generation + 1);
  });
});
