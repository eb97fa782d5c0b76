import { expect } from 'vitest';
import { StoreConfigurationError } from '../../src/errors/store-errors.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import type { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';

/** Every key under a prefix, on a single Redis or on every master of a cluster. */
export type KeysUnder = (prefix: string) => Promise<string[]>;

/**
 * Changing a Redis store's `indexPartitions`: a store opened with another N than its indexes
 * were built with is refused (typed, naming the way out) instead of listing nothing; after
 * `rebuildIndexes` in the new layout every execution is listed again, in the same order and
 * pages, and no index key of the old layout is left. Run on a single Redis and on a cluster.
 */
export async function indexRebuildCase(
  open: (indexPartitions: number) => RedisExecutionStore,
  keysUnder: KeysUnder,
  prefix: string,
): Promise<void> {
  const ids: string[] = [];
  const one = open(1);
  try {
    for (let i = 0; i < 40; i++) {
      const executionId = `rx-${String(i).padStart(2, '0')}`;
      ids.push(executionId);
      await one.save({
        ...newExecutionState({
          executionId,
          tenantId: i % 4 === 0 ? 'other' : 'acme',
          flowId: i % 2 ? 'odd' : 'even',
          status: i % 3 ? 'running' : 'completed',
        }),
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      });
    }
    expect((await one.list({ tenantId: 'acme', limit: 100 })).items).toHaveLength(30);
  } finally {
    await one.close();
  }

  const four = open(4);
  try {
    const refused = await four.list({ tenantId: 'acme' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreConfigurationError);
    expect((refused as Error).message).toMatch(/built with 1 index partition.*configured with 4/);
    expect((refused as Error).message).toContain('plaita reindex --index-partitions 4');

    const report = await four.rebuildIndexes();
    expect(report.executions).toBe(40);
    expect(report.unreadable).toEqual([]);
    expect(report.removedKeys).toBeGreaterThan(0);
    const left = (await keysUnder(prefix)).filter((key) => key.includes(':idx:'));
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((key) => /%idx\dof4\}/.test(key))).toBe(true);

    // The same executions, newest first, in the same keyset pages as one partition gave.
    const acme = ids.filter((_, i) => i % 4 !== 0).reverse();
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await four.list({ tenantId: 'acme', limit: 7, ...(cursor ? { cursor } : {}) });
      pages.push(...page.items.map((item) => item.executionId));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages).toEqual(acme);
    const completedOdd = await four.list({
      tenantId: 'acme',
      status: 'completed',
      flowId: 'odd',
      limit: 100,
    });
    expect(completedOdd.items.map((item) => item.executionId)).toEqual(
      acme.filter((id) => Number(id.slice(3)) % 3 === 0 && Number(id.slice(3)) % 2 === 1),
    );
    expect((await four.list({ tenantId: 'other', limit: 100 })).items).toHaveLength(10);

    // Idempotent: a second run (an interrupted one finished) changes nothing listed.
    const again = await four.rebuildIndexes();
    expect(again).toEqual({ executions: 40, removedKeys: 0, unreadable: [] });
    expect((await four.list({ tenantId: 'acme', limit: 100 })).items).toHaveLength(30);
  } finally {
    await four.close();
  }

  // Back to one partition is the same procedure; the old layout is then the one refused.
  const stale = open(4);
  const back = open(1);
  try {
    await expect(back.list({ tenantId: 'acme' })).rejects.toBeInstanceOf(StoreConfigurationError);
    await back.rebuildIndexes();
    expect((await back.list({ tenantId: 'acme', limit: 100 })).items).toHaveLength(30);
    await expect(stale.list({ tenantId: 'acme' })).rejects.toThrow(
      /built with 1 .*configured with 4/,
    );
  } finally {
    await back.close();
    await stale.close();
  }
}
