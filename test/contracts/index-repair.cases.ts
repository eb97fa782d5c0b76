import { expect } from 'vitest';
import { newExecutionState } from '../../src/state/execution-state.js';
import type { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { RedisKeys } from '../../src/backends/redis/store/redis-keys.js';

/** Raw access to the server the store writes to (a plain client, or a Cluster one). */
export interface RawKeys {
  set(key: string, value: string): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

/**
 * A status change whose index write fails — made to fail here with a status index that is not
 * a sorted set (WRONGTYPE), as a server lost between the record and the indexes would — must
 * not leave `list` by status missing the execution once the caller's retry of that same save
 * has succeeded, nor for long when nobody saves it again. On a single Redis the save's one
 * script writes the indexes first and the record after, so a failure writes no record; on a
 * cluster (indexes in other slots, written after the record) the store remembers the failure:
 * the retry re-indexes, and without one the entry is added again in the background.
 */
export async function indexRepairCase(
  store: RedisExecutionStore,
  raw: RawKeys,
  prefix: string,
  record: 'kept' | 'not written',
  repair: 'retry' | 'background' = 'retry',
): Promise<void> {
  const executionId = `repair-${Math.random().toString(36).slice(2)}`;
  const tenantId = 'repair';
  const running = newExecutionState({ executionId, tenantId, status: 'running' });
  await store.save(running);
  const keys = new RedisKeys(prefix);
  const suspendedIndex = keys.tenantIndex(tenantId).status('suspended');
  await raw.set(suspendedIndex, 'not a sorted set');
  const suspended = { ...running, status: 'suspended' as const, version: 1 };
  await expect(store.save(suspended)).rejects.toThrow();
  expect((await store.load(executionId, { tenantId }))?.status).toBe(
    record === 'kept' ? 'suspended' : 'running',
  );
  await raw.del(suspendedIndex);

  if (repair === 'retry') {
    await store.save(suspended); // the caller's retry
  } else {
    // Nobody saves it again (a suspended execution waits for its event): the store adds the
    // entry again in the background, a second after the failure.
    await expect
      .poll(async () => (await store.list({ tenantId, status: 'suspended' })).items.length, {
        timeout: 4000,
        interval: 200,
      })
      .toBe(1);
  }
  const listed = await store.list({ tenantId, status: 'suspended' });
  expect(listed.items.map((i) => i.executionId)).toEqual([executionId]);
  expect((await store.list({ tenantId, status: 'running' })).items).toEqual([]);
  await store.delete(executionId, { tenantId }).catch(() => undefined);
}
