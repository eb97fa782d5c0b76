import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, expect } from 'vitest';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisKeys } from '../../../src/backends/redis/store/redis-keys.js';
import { cli } from '../../cli/run-cli.js';
import { indexRebuildCase } from '../../contracts/index-rebuild.cases.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

/**
 * The listing indexes' recorded layout and `plaita reindex` on a single Redis (the same case
 * runs on a cluster in test/redis-cluster/cluster-contracts.test.ts).
 */
const gate = await redisGate();
const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
const prefixes: string[] = [];
const fresh = (): string => {
  const prefix = uniqueName('plaita-layout');
  prefixes.push(prefix);
  return prefix;
};

async function keysUnder(prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

gate.describe('Redis listing-index layout', () => {
  gate.it('a changed partition count is refused until the indexes are rebuilt', async () => {
    const prefix = fresh();
    await indexRebuildCase(
      (indexPartitions) => new RedisExecutionStore({ url: REDIS_URL }, { prefix, indexPartitions }),
      keysUnder,
      prefix,
    );
  });

  gate.it('the rebuild names unreadable records and touches no other key', async () => {
    const prefix = fresh();
    const store = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
    try {
      await store.save(newExecutionState({ executionId: 'good', status: 'running' }));
      await store.save(newExecutionState({ executionId: 'bad', status: 'running' }));
      const keys = new RedisKeys(prefix);
      await admin.hset(keys.execution('default', 'bad').header, 'summary', 'not a summary');
      // Keys that only look like index or header keys to a SCAN pattern are left alone.
      const lookalikes = [
        `${prefix}:{ctl:keys:default}:rec:{x}:h`,
        `${prefix}:{ctl:keys:default}:rec:{y}:idx:all`,
      ];
      for (const key of lookalikes) await admin.set(key, 'kept');
      const before = (await keysUnder(prefix)).sort();
      const report = await store.rebuildIndexes();
      expect(report.executions).toBe(1);
      expect(report.unreadable).toEqual([keys.execution('default', 'bad').header]);
      expect(report.removedKeys).toBe(0);
      // The layout record was written by the first save, before the snapshot.
      expect(before).toContain(keys.indexLayout);
      expect((await keysUnder(prefix)).sort()).toEqual(before);
      expect(await admin.get(keys.indexLayout)).toBe('1');
      for (const key of lookalikes) expect(await admin.get(key)).toBe('kept');
    } finally {
      await store.close();
    }
  });

  gate.it(
    'writers record the layout, readers only compare: an ad-hoc reader never records its N',
    async () => {
      const prefix = fresh();
      const keys = new RedisKeys(prefix, 4);
      const fleet = new RedisExecutionStore({ url: REDIS_URL }, { prefix, indexPartitions: 4 });
      const adHoc = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
      try {
        // A reader first, on a store without a record (older than it): nothing recorded.
        expect((await adHoc.list()).items).toEqual([]);
        expect(await admin.get(keys.indexLayout)).toBeNull();
        for (let i = 0; i < 5; i++)
          await fleet.save(newExecutionState({ executionId: `f${i}`, status: 'running' }));
        expect(await admin.get(keys.indexLayout)).toBe('4');
        const late = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
        try {
          await expect(late.list()).rejects.toThrow(
            /built with 4 index partition.*configured with 1/,
          );
          // A writer with the wrong N is refused before it indexes anything.
          await expect(
            late.save(newExecutionState({ executionId: 'stray', status: 'running' })),
          ).rejects.toMatchObject({ code: 'store_misconfigured', retryable: false });
          expect(await late.load('stray')).toBeNull();
          // As are a delete and a sweep: their index removals would miss the fleet's entries.
          await expect(late.delete('f0')).rejects.toMatchObject({ code: 'store_misconfigured' });
          await expect(late.sweepExpired()).rejects.toMatchObject({
            code: 'store_misconfigured',
          });
          expect(await late.load('f0')).not.toBeNull();
        } finally {
          await late.close();
        }
        expect((await fleet.list()).items).toHaveLength(5);
      } finally {
        await fleet.close();
        await adHoc.close();
      }
    },
  );

  gate.it('the CLI refuses a mismatched process with exit 2 and reindexes', async () => {
    const prefix = fresh();
    const cwd = mkdtempSync(join(tmpdir(), 'plaita-reindex-'));
    const store = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
    try {
      for (let i = 0; i < 5; i++)
        await store.save(newExecutionState({ executionId: `c${i}`, status: 'completed' }));
      await store.list(); // records the layout (one partition)
    } finally {
      await store.close();
    }
    const env = { PLAITA_PREFIX: prefix, PLAITA_STORE: REDIS_URL };
    const refused = cli(['--json', 'list'], {
      cwd,
      env: { ...env, PLAITA_INDEX_PARTITIONS: '3' },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('plaita reindex --index-partitions 3');

    const rebuilt = cli(['--json', 'reindex', '--index-partitions', '3'], { cwd, env });
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({
      executions: 5,
      indexPartitions: 3,
      unreadable: [],
    });
    const listed = cli(['--json', 'list'], {
      cwd,
      env: { ...env, PLAITA_INDEX_PARTITIONS: '3' },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout.match(/"executionId"/g)).toHaveLength(5);

    const sqlite = cli(['reindex', '--store', 'memory'], { cwd });
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toContain('keeps its indexes in the database itself');
  });
});

afterAll(async () => {
  if (!gate.available) return;
  for (const prefix of prefixes) {
    const keys = await keysUnder(prefix);
    if (keys.length > 0) await admin.unlink(...keys);
  }
  admin.disconnect();
});
