import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisKeys } from '../../../src/backends/redis/store/redis-keys.js';
import { newExecutionState, type ExecutionState } from '../../../src/state/execution-state.js';
import { claimExecution, type ExecutionStore } from '../../../src/store/execution-store.js';
import { legacyHeader, LAYOUT_KEY_PREFIXES } from '../../contracts/layout-entries.cases.js';
import { describeExecutionStore } from '../../contracts/execution-store.contract.js';
import { outageCases } from '../../contracts/outage.cases.js';
import { startRedisServer, type PrivateRedisServer } from '../../support/redis-server.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

/**
 * The shared conformance suite, run against the shared Redis under a unique key prefix, and
 * its outage cases against a private redis-server that is killed (SIGKILL) and restarted on
 * the same port and AOF dir. (A SIGSTOPped server is the wrong outage for "writes nothing": a
 * command that reached it and timed out on our side runs when it resumes — a timeout's outcome
 * is unknown by nature; redis-outage.test.ts covers that case for the never-hang guarantee.)
 */
const gate = await redisGate();
const prefix = uniqueName('plaita-contract');

/** The layout before timing entries: timings back in the header, their fields gone. */
async function writeLegacyLayout(_store: ExecutionStore, state: ExecutionState): Promise<void> {
  const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys = new RedisKeys(prefix, 1).execution(state.tenantId, state.executionId);
    const header = legacyHeader(state);
    const fields = await admin.hkeys(keys.nodes);
    let nodeBytes = 0;
    for (const field of fields) {
      const bytes = await admin.hstrlen(keys.nodes, field);
      if (LAYOUT_KEY_PREFIXES.some((p) => field.startsWith(p))) await admin.hdel(keys.nodes, field);
      else nodeBytes += bytes;
    }
    await admin.hset(keys.header, {
      header,
      headerBytes: Buffer.byteLength(header),
      nodeBytes,
    });
  } finally {
    admin.disconnect();
  }
}

if (gate.available) {
  describeExecutionStore(
    'redis',
    (options) => new RedisExecutionStore({ url: REDIS_URL }, { prefix, ...options }),
    { legacyLayout: writeLegacyLayout },
  );

  describe('ExecutionStore conformance: redis (private server, outage)', () => {
    let server: PrivateRedisServer | undefined;
    beforeAll(async () => {
      server = await startRedisServer({ persistence: 'aof' });
    });
    afterAll(async () => {
      await server?.stop();
    });
    outageCases(
      (options) => new RedisExecutionStore({ url: server!.url }, { prefix, ...options }),
      async () => {
        await server!.kill('SIGKILL');
        return () => server!.restart();
      },
    );
  });

  describe('redis: a cancel mark stored before marks were spent on terminal', () => {
    gate.it('is cleared by the claim of the terminal execution, so a retry runs', async () => {
      const store = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const failed = newExecutionState({
          executionId: uniqueName('old-mark'),
          status: 'error',
          error: { code: 'x', name: 'E', message: 'm', retryable: false },
        });
        await store.save(failed);
        const header = new RedisKeys(prefix).execution('default', failed.executionId).header;
        await admin.hset(header, 'cancelRequested', '1'); // as an older version left it
        const claimed = await claimExecution(store, failed.executionId, {
          tenantId: 'default',
          owner: 'w1',
          ttlMs: 10_000,
        });
        expect(claimed).toMatchObject({ kind: 'claimed', cancelRequested: false });
        expect(await store.isCancelRequested(failed.executionId)).toBe(false);
      } finally {
        admin.disconnect();
        await store.close();
      }
    });
  });

  afterAll(async () => {
    // Test clean-up only (the store itself never scans): drop every key of this run's prefix.
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
  gate.describe('ExecutionStore conformance: redis', () => undefined);
}
