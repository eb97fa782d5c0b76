import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { FlowVersionConflictError } from '../../../src/errors/flow-definition-errors.js';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../../src/backends/redis/store/redis-flow-store.js';
import { RedisKeys } from '../../../src/backends/redis/store/redis-keys.js';
import { canonicalJson, sha256Hex } from '../../../src/util/canonical-json.js';
import { describeFlowStore, type LegacyFlow } from '../../contracts/flow-store.contract.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

const gate = await redisGate();
const prefix = uniqueName('plaita-flows');
const keys = new RedisKeys(prefix);
// One client the caller owns, shared by every store of the file: the stores borrow it and
// must leave it open when they close.
let client: Redis;
beforeAll(() => {
  client = new Redis(REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
  });
});
afterAll(async () => {
  if (gate.available) {
    expect(await client.ping()).toBe('PONG'); // still open after every store closed
    let cursor = '0';
    do {
      const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (found.length > 0) await client.unlink(...found);
      cursor = next;
    } while (cursor !== '0');
  }
  client.disconnect();
});

/**
 * `flows` written directly as the release before flows had tenants laid them out, under a
 * prefix of their own (inside this file's, so the clean-up finds them):
 *   `<p>:flowdoc:{<flowHash>}`  text, flowId / version as JSON, createdAt
 *   `<p>:flowid:{<flowId>}`     v:<version> → hash, c:<hash> → 1, latest → hash
 */
async function legacyPrefix(flows: LegacyFlow[]): Promise<string> {
  const legacy = `${prefix}:legacy-${randomUUID()}`;
  for (const f of flows) {
    await client.hset(`${legacy}:flowdoc:{${f.flowHash}}`, {
      text: f.text,
      flowId: JSON.stringify(f.flowId),
      version: JSON.stringify(f.version),
      createdAt: String(f.createdAt),
    });
    if (f.flowId === null) continue;
    const versions = `${legacy}:flowid:{${f.flowId}}`;
    if (f.version !== null) await client.hset(versions, `v:${f.version}`, f.flowHash);
    await client.hset(versions, `c:${f.flowHash}`, '1', 'latest', f.flowHash);
  }
  return legacy;
}

gate.describe('Redis', () => {
  describeFlowStore('redis', (options) => new RedisFlowStore({ client }, { prefix, ...options }), {
    legacy: async (flows) => {
      const legacy = await legacyPrefix(flows);
      return {
        open: () => new RedisFlowStore({ client }, { prefix: legacy }),
        pin: async (tenantId, flowHash) => {
          const store = new RedisExecutionStore({ client }, { prefix: legacy });
          try {
            await store.save(newExecutionState({ executionId: randomUUID(), tenantId, flowHash }));
          } finally {
            await store.close();
          }
        },
      };
    },
  });

  const flow = (
    flowId: string,
    version: string | null,
    message = 'hi',
  ): Record<string, unknown> => ({
    flow_id: flowId,
    ...(version === null ? {} : { version }),
    nodes: [{ id: 'end', type: 'end', result: { message } }],
  });
  const acme = { tenantId: 'acme' };

  gate.it('a conflicting put stores nothing, not even the document by hash', async () => {
    const store = new RedisFlowStore({ client }, { prefix });
    const flowId = `flow-${randomUUID()}`;
    await store.put(flow(flowId, '1'), acme);
    const other = flow(flowId, '1', 'changed');
    await expect(store.put(other, acme)).rejects.toBeInstanceOf(FlowVersionConflictError);
    expect(await store.getByHash(sha256Hex(canonicalJson(other)), acme)).toBeNull();
    expect(await client.exists(keys.flows('acme').document(sha256Hex(canonicalJson(other))))).toBe(
      0,
    );
    await store.close();
  });

  gate.it(
    'a publication lost after the document was stored is restored by putting it again',
    async () => {
      const store = new RedisFlowStore({ client }, { prefix });
      const flowId = `flow-${randomUUID()}`;
      const stored = await store.put(flow(flowId, '1'), acme);
      await client.del(keys.flows('acme').versions(flowId)); // as if the publication were lost
      expect(await store.getByVersion(flowId, '1', acme)).toBeNull();
      expect(await store.put(flow(flowId, '1'), acme)).toEqual(stored); // same record, createdAt kept
      expect(await store.getByVersion(flowId, '1', acme)).toEqual(stored);
      await store.close();
    },
  );

  gate.it('documents without a version are found as the latest of their flow id', async () => {
    const store = new RedisFlowStore({ client }, { prefix });
    const flowId = `flow-${randomUUID()}`;
    await store.put(flow(flowId, '1'), acme);
    const unversioned = await store.put(flow(flowId, null, 'draft'), acme);
    expect(unversioned.version).toBeNull();
    expect(await store.getByVersion(flowId, null, acme)).toEqual(unversioned);
    await store.put(flow(flowId, '1'), acme); // re-putting old content is no new publication
    expect(await store.getByVersion(flowId, null, acme)).toEqual(unversioned);
    await store.close();
  });

  gate.it(
    "a tenant's flow keys carry its hash tag, and the old layout is never written",
    async () => {
      const store = new RedisFlowStore({ client }, { prefix });
      const flowId = `flow-${randomUUID()}`;
      const stored = await store.put(flow(flowId, '1'), {});
      const own = keys.flows('default');
      expect(own.document(stored.flowHash)).toBe(`${prefix}:{default}:flowdoc:${stored.flowHash}`);
      expect(own.versions(flowId)).toBe(`${prefix}:{default}:flowid:${flowId}`);
      expect(await client.exists(own.document(stored.flowHash), own.versions(flowId))).toBe(2);
      const old = keys.legacyFlows;
      expect(await client.exists(old.document(stored.flowHash), old.versions(flowId))).toBe(0);
      await store.close();
    },
  );
});
