import { Redis, type Command } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { StateCorruptError } from '../../../src/errors/state-errors.js';
import {
  StoreUnavailableError,
  RedisCommandError,
  StoreClosedError,
} from '../../../src/errors/store-errors.js';
import { newExecutionState, type ExecutionState } from '../../../src/state/execution-state.js';
import { ExecutionIndex } from '../../../src/backends/redis/store/execution-index.js';
import { RedisConnection } from '../../../src/backends/redis/redis-connection.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisKeys } from '../../../src/backends/redis/store/redis-keys.js';
import { SCRIPTS } from '../../../src/backends/redis/store/redis-store-scripts.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

/**
 * What the shared suite cannot see: how the Redis store lays the data out (only changed node
 * fields written, sizes kept, TTL on every key), how its indexes heal, and how it fails.
 * Inspected with a second client; the store runs on a borrowed client that records commands.
 */
const gate = await redisGate();
const prefix = uniqueName('plaita-storage');
const keys = new RedisKeys(prefix);
let client: Redis;
let inspect: Redis;
let store: RedisExecutionStore;
const scriptCalls: { sha: string; args: string[] }[] = [];

const big = (label: string, size = 2000): string => label.padEnd(size, '.');

function withNodes(
  id: string,
  nodes: Record<string, unknown>,
  extra: Partial<ExecutionState> = {},
): ExecutionState {
  return newExecutionState({
    executionId: id,
    context: {
      $INPUT: { x: 1 },
      $NODE: nodes,
      $VISITS: Object.fromEntries(Object.keys(nodes).map((n) => [n, 1])),
    },
    ...extra,
  });
}

/** Node fields as stored, and the running total the save script keeps beside them. */
async function storedNodes(
  id: string,
): Promise<{ fields: string[]; sizes: Record<string, number>; total: number; kept: number }> {
  const exec = keys.execution('default', id);
  const fields = (await inspect.hkeys(exec.nodes)).sort();
  const sizes: Record<string, number> = {};
  for (const field of fields) sizes[field] = await inspect.hstrlen(exec.nodes, field);
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  return { fields, sizes, total, kept: Number(await inspect.hget(exec.header, 'nodeBytes')) };
}

/** The node keys written by the last save call (one save: save-states.lua with N = 1). */
function lastSaveWrote(): string[] {
  const call = scriptCalls.filter((c) => c.sha === SCRIPTS.saveStates.source.sha).at(-1)!;
  // sha, numkeys, the keys; then N, k, a (save-states.lua) before the save's own ARGV
  const argv = call.args.slice(2 + Number(call.args[1]) + 3);
  const removed = Number(argv[7]);
  const indexArgs = Number(argv[8]); // save-state.lua: ARGV[9], the index arguments that follow
  const pairs = argv.slice(9 + indexArgs + removed);
  return pairs.filter((_, i) => i % 2 === 0);
}

gate.describe('RedisExecutionStore storage layout', () => {
  beforeAll(() => {
    client = new Redis(REDIS_URL, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command: Command, stream?: never) => {
      if (command.name === 'evalsha') {
        const args = command.args.map(String);
        scriptCalls.push({ sha: args[0]!, args });
      }
      return send(command, stream);
    };
    inspect = new Redis(REDIS_URL);
    store = new RedisExecutionStore({ client }, { prefix, terminalTtlMs: 60_000 });
  });

  afterAll(async () => {
    await store.close();
    // The store borrowed `client`: closing the store must have left it open.
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    let cursor = '0';
    do {
      const [next, found] = await inspect.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (found.length > 0) await inspect.unlink(...found);
      cursor = next;
    } while (cursor !== '0');
    inspect.disconnect();
  });

  gate.it(
    'an incremental save writes only the changed node fields; a full rewrite drops stale ones',
    async () => {
      const first = withNodes('inc', { a: big('a'), b: big('b', 500), c: 3 });
      await store.save(first);
      // `\i`: the input, stored beside the results (checkpoint-parts.ts).
      expect(lastSaveWrote()).toEqual(['\\i', 'a', 'b', 'c']);
      const before = await storedNodes('inc');
      expect(before.fields).toEqual(['\\i', 'a', 'b', 'c']);
      expect(before.kept).toBe(before.total);

      // The caller vouches that only `d` changed: `a` (changed here behind the store's back) is
      // not even sent, which proves the save wrote `d` alone.
      const second = withNodes(
        'inc',
        { a: 'CHANGED', b: big('b', 500), c: 3, d: { new: true } },
        { version: 1 },
      );
      await store.save(second, { changedNodes: ['d'], unchangedInput: true });
      expect(lastSaveWrote()).toEqual(['d']);
      const after = await storedNodes('inc');
      expect(after.fields).toEqual(['\\i', 'a', 'b', 'c', 'd']);
      expect(after.sizes.a).toBe(before.sizes.a);
      expect(after.kept).toBe(after.total);

      // A listed node that is gone from $NODE is deleted; the running total follows.
      const third = withNodes('inc', { a: big('a'), c: 3, d: { new: true } }, { version: 2 });
      await store.save(third, { changedNodes: ['b'], unchangedInput: true });
      expect(lastSaveWrote()).toEqual([]);
      const removed = await storedNodes('inc');
      expect(removed.fields).toEqual(['\\i', 'a', 'c', 'd']);
      expect(removed.kept).toBe(removed.total);

      // A full rewrite removes every field not in the context.
      await store.save(withNodes('inc', { c: 4 }, { version: 3 }));
      expect((await storedNodes('inc')).fields).toEqual(['\\i', 'c']);
      expect((await store.load('inc'))?.context.$NODE).toEqual({ c: 4 });
    },
  );

  gate.it(
    'a terminal save puts the TTL on every key of the execution; saving it non-terminal again removes it',
    async () => {
      const exec = keys.execution('default', 'ttl');
      await store.save(
        withNodes(
          'ttl',
          { a: 1 },
          { status: 'error', error: { code: 'x', name: 'E', message: 'm', retryable: false } },
        ),
      );
      for (const key of [exec.header, exec.nodes]) {
        const ttl = await inspect.pttl(key);
        expect(ttl).toBeGreaterThan(50_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
      expect(await inspect.zcard(keys.expiring)).toBe(1);
      await store.save(withNodes('ttl', { a: 1, b: 2 }, { status: 'running', version: 1 }));
      expect(await inspect.pttl(exec.header)).toBe(-1);
      expect(await inspect.pttl(exec.nodes)).toBe(-1);
      expect(await inspect.zcard(keys.expiring)).toBe(0);
      await store.delete('ttl');
    },
  );

  gate.it('list skips and prunes stale index entries (status moved on, record gone)', async () => {
    const tenantId = 'stale';
    const idx = keys.tenantIndex(tenantId);
    const running = withNodes('stale-running', { a: 1 }, { status: 'running', tenantId });
    await store.save(running);
    const score = Date.parse(running.createdAt);
    await inspect.zadd(idx.status('completed'), score, 'stale-running'); // left over by a failed index update
    await inspect.zadd(idx.all, score + 1, 'ghost'); // its record expired or was deleted
    await inspect.zadd(idx.status('completed'), score + 1, 'ghost');

    expect((await store.list({ tenantId, status: 'completed' })).items).toEqual([]);
    expect(await inspect.zscore(idx.status('completed'), 'stale-running')).toBeNull();
    expect(await inspect.zscore(idx.status('completed'), 'ghost')).toBeNull();
    expect((await store.list({ tenantId })).items.map((i) => i.executionId)).toContain(
      'stale-running',
    );
    expect(await inspect.zscore(idx.all, 'ghost')).toBeNull();
    expect(await inspect.zscore(idx.status('running'), 'stale-running')).not.toBeNull();
    await store.delete('stale-running', { tenantId });
    expect(await inspect.zcard(idx.all)).toBe(0);
  });

  gate.it(
    'an execution expired by key TTL disappears from list at once and from the indexes at the next sweep',
    async () => {
      const short = new RedisExecutionStore({ client }, { prefix, terminalTtlMs: 100 });
      const tenantId = 'expiry';
      const idx = keys.tenantIndex(tenantId);
      await short.save(
        withNodes(
          'expires',
          { a: 1 },
          { status: 'completed', flowId: 'f1', flowHash: 'h1', tenantId },
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await short.load('expires', { tenantId })).toBeNull();
      expect((await short.list({ tenantId })).items).toEqual([]);
      expect(await inspect.zscore(idx.flow('f1'), 'expires')).not.toBeNull(); // nothing has pruned it yet
      expect(await short.sweepExpired()).toBe(1);
      for (const key of [
        idx.all,
        idx.status('completed'),
        idx.flow('f1'),
        idx.hash('h1'),
        keys.expiring,
      ]) {
        expect(await inspect.zcard(key), key).toBe(0);
      }
      expect(await short.sweepExpired()).toBe(0);
      await short.close();
    },
  );

  gate.it(
    'on a single Redis a save that changes the status is one script call, indexes included',
    async () => {
      const calls = () => scriptCalls.length;
      const state = withNodes('one-call', { a: 1 }, { tenantId: 'one-call', flowId: 'f' });
      const before = calls();
      await store.save(state); // queued: created and indexed
      await store.save({ ...state, status: 'running', version: 1 });
      await store.save({ ...state, status: 'running', version: 2 });
      await store.save({ ...state, status: 'completed', version: 3 });
      expect(calls() - before).toBe(4);
      expect(scriptCalls.slice(before).every((c) => c.sha === SCRIPTS.saveStates.source.sha)).toBe(
        true,
      );
      // Only the running → running checkpoint leaves the indexes alone: it sends just the
      // execution's two keys (the others add the expiry, `all`, status, and flow index keys).
      expect(scriptCalls.slice(before).map((c) => Number(c.args[1]))).toEqual([11, 11, 2, 11]);
      const listed = await store.list({ tenantId: 'one-call', status: 'completed' });
      expect(listed.items.map((i) => i.executionId)).toEqual(['one-call']);
      const idx = keys.tenantIndex('one-call');
      expect(await inspect.zscore(idx.status('running'), 'one-call')).toBeNull();
      expect(await inspect.zscore(idx.flow('f'), 'one-call')).not.toBeNull();
      await store.delete('one-call', { tenantId: 'one-call' });
      expect(await inspect.zcard(idx.all)).toBe(0);
    },
  );

  gate.it(
    'the index updates of one tick go out as one script call per tenant, applied in order',
    async () => {
      const ids = Array.from({ length: 12 }, (_, i) => `batch-${i}`);
      const tenantOf = (i: number): string => (i % 2 === 0 ? 'batch-a' : 'batch-b');
      const indexCalls = (): { sha: string; args: string[] }[] =>
        scriptCalls.filter((c) => c.sha === SCRIPTS.indexEntries.source.sha);
      const states = ids.map((id, i) =>
        withNodes(id, { a: i }, { tenantId: tenantOf(i), flowId: 'f', flowHash: 'h' }),
      );
      // Saves answer in whatever ticks their replies arrive: drive the index itself, in one tick.
      const index = new ExecutionIndex(new RedisConnection({ client }), keys);
      const entry = (s: ExecutionState) => ({ ...s, createdAt: Date.parse(s.createdAt) });
      await Promise.all(states.map((s) => store.save(s))); // the records the indexes point at
      let before = indexCalls().length;
      await Promise.all(states.map((s) => index.record(entry(s), null, null)));
      expect(indexCalls().length - before).toBe(2); // one per tenant
      const listed = async (tenantId: string, status?: 'queued' | 'completed') =>
        (await store.list({ tenantId, ...(status ? { status } : {}) })).items
          .map((i) => i.executionId)
          .sort();
      expect(await listed('batch-a', 'queued')).toEqual(ids.filter((_, i) => i % 2 === 0).sort());

      // In one batch, in order: the last update of an execution wins.
      const done = states.map((s) => ({ ...s, status: 'completed' as const, version: 1 }));
      await Promise.all(done.map((s) => store.save(s)));
      before = indexCalls().length;
      await Promise.all([
        ...done.map((s) => index.record(entry(s), 'queued', Date.now() + 60_000)),
        index.record(entry(states[0]!), 'completed', null), // batch-0 back to queued, last
      ]);
      expect(indexCalls().length - before).toBe(2);
      const idxA = keys.tenantIndex('batch-a');
      expect(await inspect.zscore(idxA.status('queued'), 'batch-0')).not.toBeNull();
      expect(await inspect.zscore(idxA.status('completed'), 'batch-0')).toBeNull();
      expect(await listed('batch-a', 'completed')).toHaveLength(5);
      expect(await listed('batch-b', 'completed')).toHaveLength(6);
      expect(await inspect.zcard(idxA.flow('f'))).toBe(6);
      expect(await inspect.zcard(keys.expiring)).toBe(11); // batch-0's entry was removed last

      await Promise.all(ids.map((id, i) => store.delete(id, { tenantId: tenantOf(i) })));
      for (const tenantId of ['batch-a', 'batch-b']) {
        const idx = keys.tenantIndex(tenantId);
        for (const key of [idx.all, idx.status('completed'), idx.flow('f'), idx.hash('h')])
          expect(await inspect.zcard(key), key).toBe(0);
      }
      expect(await inspect.zcard(keys.expiring)).toBe(0);
    },
  );

  gate.it(
    'claimExecution takes the lease and reads state and cancel mark in one script call',
    async () => {
      const state = withNodes('claim', { a: { n: 1 }, b: big('b', 300) }, { status: 'running' });
      await store.save(state);
      const before = scriptCalls.length;
      const claim = await store.claimExecution('claim', { owner: 'w1', ttlMs: 30_000 });
      expect(scriptCalls.length - before).toBe(1);
      if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${claim.kind}`);
      expect(claim.state).toEqual(await store.load('claim'));
      expect(claim.cancelRequested).toBe(false);
      expect(claim.lease).toMatchObject({ executionId: 'claim', tenantId: 'default', owner: 'w1' });
      expect(await store.getLease('claim')).toEqual(claim.lease);

      // Held by w1: another owner gets `held` and changes nothing.
      expect(await store.claimExecution('claim', { owner: 'w2', ttlMs: 30_000 })).toEqual({
        kind: 'held',
      });
      expect(await store.getLease('claim')).toEqual(claim.lease);

      // The holder claims again: a new generation, and the cancel mark is reported.
      await store.requestCancel('claim');
      const again = await store.claimExecution('claim', { owner: 'w1', ttlMs: 30_000 });
      if (again.kind !== 'claimed') throw new Error(`expected a claim, got ${again.kind}`);
      expect(again.lease.generation).toBe(claim.lease.generation + 1);
      expect(again.cancelRequested).toBe(true);
      // Fencing follows the claimed generation.
      await store.save({ ...state, version: 1 }, { fence: { generation: again.lease.generation } });
      await expect(
        store.save({ ...state, version: 2 }, { fence: { generation: claim.lease.generation } }),
      ).rejects.toMatchObject({ code: 'fence_rejected' });

      // No such execution (id, tenant, or an id no store can hold): `absent`, nothing created.
      for (const [id, tenantId] of [
        ['never-saved', 'default'],
        ['claim', 'other-tenant'],
        ['', 'default'],
      ] as const) {
        expect(await store.claimExecution(id, { tenantId, owner: 'w1', ttlMs: 1000 })).toEqual({
          kind: 'absent',
        });
      }
      expect(await inspect.exists(keys.execution('default', 'never-saved').header)).toBe(0);
      expect(await inspect.exists(keys.execution('other-tenant', 'claim').header)).toBe(0);
      await store.delete('claim');
    },
  );

  gate.it(
    'claimExecution of an undecodable record rejects with StateCorruptError and gives the lease back',
    async () => {
      await store.save(withNodes('claim-corrupt', { a: 1 }));
      await inspect.hset(keys.execution('default', 'claim-corrupt').nodes, 'a', '{not json');
      const error = await store
        .claimExecution('claim-corrupt', { owner: 'w1', ttlMs: 30_000 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateCorruptError);
      expect(await store.getLease('claim-corrupt')).toBeNull();
      await store.delete('claim-corrupt');
    },
  );

  gate.it(
    'undecodable stored data is StateCorruptError; a key of the wrong type is a permanent RedisCommandError',
    async () => {
      await store.save(withNodes('corrupt', { a: 1 }));
      await inspect.hset(keys.execution('default', 'corrupt').nodes, 'a', '{not json');
      const corrupt = await store.load('corrupt').catch((e: unknown) => e);
      expect(corrupt).toBeInstanceOf(StateCorruptError);

      await inspect.set(keys.execution('default', 'wrongtype').header, 'a string, not a hash');
      const wrong = (await store.load('wrongtype').catch((e: unknown) => e)) as RedisCommandError;
      expect(wrong).toBeInstanceOf(RedisCommandError);
      expect(wrong).not.toBeInstanceOf(StoreUnavailableError);
      expect(wrong.retryable).toBe(false);
      expect(wrong.code).toBe('store_command_failed');
      expect(wrong.redisCode).toBe('WRONGTYPE');
      expect((wrong.cause as Error).name).toBe('ReplyError');
    },
  );

  gate.it(
    'an owned client is closed by close(); a closed store rejects with a permanent StoreClosedError',
    async () => {
      const owned = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
      await owned.save(withNodes('owned', { a: 1 }));
      await owned.close();
      await owned.close(); // idempotent
      const error = (await owned.load('owned').catch((e: unknown) => e)) as StoreClosedError;
      expect(error).toBeInstanceOf(StoreClosedError);
      expect(error.retryable).toBe(false);
    },
  );
});
