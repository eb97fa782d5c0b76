import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { FlowVersionConflictError } from '../../src/errors.js';
import { RedisFlowStore } from '../../src/store/redis/redis-flow-store.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { canonicalJson, sha256Hex } from '../../src/util/canonical-json.js';
import { describeFlowStore } from '../contracts/flow-store.contract.js';
import { REDIS_URL, redisGate, uniqueName } from '../support/services.js';

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

gate.describe('Redis', () => {
  describeFlowStore('redis', () => new RedisFlowStore({ client }, { prefix }));

  const flow = (
    flowId: string,
    version: string | null,
    message = 'hi',
  ): Record<string, unknown> => ({
    flow_id: flowId,
    ...(version === null ? {} : { version }),
    nodes: [{ id: 'end', type: 'end', result: { message } }],
  });

  gate.it('a conflicting put stores nothing, not even the document by hash', async () => {
    const store = new RedisFlowStore({ client }, { prefix });
    const flowId = `flow-${randomUUID()}`;
    await store.put(flow(flowId, '1'));
    const other = flow(flowId, '1', 'changed');
    await expect(store.put(other)).rejects.toBeInstanceOf(FlowVersionConflictError);
    expect(await store.getByHash(sha256Hex(canonicalJson(other)))).toBeNull();
    await store.close();
  });

  gate.it('a put cut off after storing the document is completed by putting it again', async () => {
    const store = new RedisFlowStore({ client }, { prefix });
    const flowId = `flow-${randomUUID()}`;
    const stored = await store.put(flow(flowId, '1'));
    await client.del(keys.flowVersions(flowId)); // as if the process died before publishing
    expect(await store.getByVersion(flowId, '1')).toBeNull();
    expect(await store.put(flow(flowId, '1'))).toEqual(stored); // same record, createdAt kept
    expect(await store.getByVersion(flowId, '1')).toEqual(stored);
    await store.close();
  });

  gate.it('documents without a version are found as the latest of their flow id', async () => {
    const store = new RedisFlowStore({ client }, { prefix });
    const flowId = `flow-${randomUUID()}`;
    await store.put(flow(flowId, '1'));
    const unversioned = await store.put(flow(flowId, null, 'draft'));
    expect(unversioned.version).toBeNull();
    expect(await store.getByVersion(flowId, null)).toEqual(unversioned);
    await store.put(flow(flowId, '1')); // re-putting old content is no new publication
    expect(await store.getByVersion(flowId, null)).toEqual(unversioned);
    await store.close();
  });
});
