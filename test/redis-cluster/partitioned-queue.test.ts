import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keySlot, SLOT_COUNT } from '../../src/backends/redis/key-slot.js';
import { parseClusterUrl } from '../../src/backends/redis/redis-url.js';
import { classifyRedisError } from '../../src/backends/redis/classify-redis-error.js';
import { parseStoreUrl, queueRedisUrl } from '../../src/cli/store-url.js';
import { StoreConfigurationError, StoreUnavailableError } from '../../src/errors/store-errors.js';
import { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { freePort } from '../support/redis-server.js';
import { drainQueue } from '../../src/backends/redis/queue/drain-queue.js';
import { PartitionRoute } from '../../src/backends/redis/queue/partition-route.js';
import {
  RedisStreamQueue,
  type RedisStreamQueueOptions,
} from '../../src/backends/redis/queue/redis-stream-queue.js';
import { partitionKeys, queueKeys } from '../../src/backends/redis/queue/redis-stream-keys.js';
import type { Delivery } from '../../src/queue/task-queue.js';
import type { TaskMessage } from '../../src/queue/task-message.js';
import { describeTaskQueue } from '../contracts/task-queue.contract.js';
import { monitorRedis } from '../support/redis-monitor.js';
import { REDIS_URL, redisGate, uniqueName } from '../support/services.js';

/**
 * The partitioned RedisStreamQueue on the shared standalone Redis: the shared queue suite with
 * 4 partitions, and what partitioning adds — the key layout, routing by execution, fairness,
 * and the drain-and-switch of a partition-count change. Plus the cluster URL parsing and the
 * reply-code classification, which need no server.
 */
const gate = await redisGate();
const run = (executionId: string, extra: Record<string, unknown> = {}): TaskMessage => ({
  v: 1,
  kind: 'run',
  executionId,
  tenantId: 't1',
  ...extra,
});
const executionOf = (d: Delivery): string => (d.parsed.ok ? d.parsed.message.executionId : '?');

async function dropKeys(raw: Redis, prefix: string, partitions: number): Promise<void> {
  for (const keys of partitionKeys('plaita:tasks', prefix, partitions))
    await raw.del(...Object.values(keys));
}

describeTaskQueue(
  'RedisStreamQueue, 4 partitions (standalone)',
  () => {
    const prefix = `${uniqueName('plaita_test_pq')}:`;
    const keys = partitionKeys('plaita:tasks', prefix, 4);
    const raw = new Redis(REDIS_URL);
    const queues: RedisStreamQueue[] = [];
    return Promise.resolve({
      open: (options = {}) => {
        const queue = new RedisStreamQueue(
          { url: REDIS_URL },
          { prefix, partitions: 4, ...options },
        );
        queues.push(queue);
        return queue;
      },
      injectRaw: async (payload) => {
        await raw.xadd(keys[0]!.stream, '*', 'payload', payload);
      },
      storedMessages: async () =>
        (await Promise.all(keys.map((k) => raw.xlen(k.stream)))).reduce((a, b) => a + b, 0),
      close: async () => {
        await Promise.all(queues.map((q) => q.close()));
        await dropKeys(raw, prefix, 4);
        await raw.quit();
      },
    });
  },
  gate.describe,
  { globalOrder: false, exactDeadLetterCap: false },
);

describe('partitioned queue key layout', () => {
  it('one partition is exactly the unpartitioned layout (existing data keeps working)', () => {
    expect(partitionKeys('plaita:tasks', 'p:', 1)).toEqual([queueKeys('plaita:tasks', 'p:')]);
    expect(queueKeys('plaita:tasks', '')).toEqual({
      stream: '{plaita:tasks}',
      delayed: '{plaita:tasks}:delayed',
      timers: '{plaita:tasks}:timers',
      deadLetters: '{plaita:tasks}:dlq',
    });
  });

  it('N partitions: one hash tag each, slots spread evenly, the same in every process', () => {
    for (const n of [2, 3, 6, 16]) {
      const keys = partitionKeys('plaita:tasks', '', n);
      expect(keys).toEqual(partitionKeys('plaita:tasks', '', n));
      for (const [i, k] of keys.entries()) {
        const slot = keySlot(k.stream);
        for (const key of Object.values(k)) expect(keySlot(key)).toBe(slot);
        expect(slot).toBeGreaterThanOrEqual(Math.floor((i * SLOT_COUNT) / n));
        expect(slot).toBeLessThan(Math.floor(((i + 1) * SLOT_COUNT) / n));
      }
    }
    // Two partition counts never share a key: an old layout drains beside a new one.
    const six = new Set(partitionKeys('q', '', 6).map((k) => k.stream));
    expect(partitionKeys('q', '', 8).some((k) => six.has(k.stream))).toBe(false);
    expect(partitionKeys('q', '', 1).some((k) => six.has(k.stream))).toBe(false);
    expect(() => partitionKeys('q', '', 0)).toThrow(RangeError);
    expect(() => partitionKeys('q', '', 1.5)).toThrow(RangeError);
  });
});

gate.describe('partitioned RedisStreamQueue on Redis', () => {
  let raw: Redis;
  let prefix: string;
  const opened: RedisStreamQueue[] = [];
  const open = (options: RedisStreamQueueOptions = {}): RedisStreamQueue => {
    const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix, ...options });
    opened.push(queue);
    return queue;
  };

  beforeEach(() => {
    raw = new Redis(REDIS_URL);
    prefix = `${uniqueName('plaita_test_pq')}:`;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
    for (const n of [1, 4, 6]) await dropKeys(raw, prefix, n);
    await raw.quit();
  });

  gate.it(
    'routes by execution: its messages keep their order; executions spread over all',
    async () => {
      const queue = open({ partitions: 6 });
      const keys = partitionKeys('plaita:tasks', prefix, 6);
      for (let i = 0; i < 5; i++) await queue.enqueue(run('one', { step: i }));
      for (let i = 0; i < 120; i++) await queue.enqueue(run(`e${i}`));
      const lengths = await Promise.all(keys.map((k) => raw.xlen(k.stream)));
      expect(lengths.every((n) => n > 0)).toBe(true);
      const got: Delivery[] = [];
      for (let round = 0; round < 50 && got.length < 125; round++)
        got.push(...(await queue.receive('c1', { max: 7, blockMs: 0 })));
      expect(got).toHaveLength(125);
      const steps = got
        .filter((d) => executionOf(d) === 'one')
        .map((d) => (d.parsed.ok ? (d.parsed.message as { step?: number }).step : -1));
      expect(steps).toEqual([0, 1, 2, 3, 4]);
      expect(
        new Set(got.filter((d) => executionOf(d) === 'one').map((d) => d.id.split(':')[0])).size,
      ).toBe(1);
      for (const d of got) await queue.ack(d);
      expect((await queue.stats()).inFlight).toBe(0);
    },
  );

  gate.it('reads every partition fairly: a busy partition does not starve the others', async () => {
    const queue = open({ partitions: 4 });
    const route = new PartitionRoute(4);
    for (let i = 0; i < 100; i++) await queue.enqueue(run('hot', { i }));
    // One execution in each of the three other partitions.
    const others = new Map<number, string>();
    for (let i = 0; others.size < 3; i++) {
      const id = `cold-${i}`;
      const p = route.of(id);
      if (p !== route.of('hot') && !others.has(p)) others.set(p, id);
    }
    for (const id of others.values()) await queue.enqueue(run(id));
    // Each call asks one partition first, a different one each time: within N calls every
    // partition has been first, so each cold message is out while the hot one still has ~90.
    const got: string[] = [];
    for (let call = 0; call < 4; call++)
      got.push(...(await queue.receive('c1', { max: 4, blockMs: 0 })).map(executionOf));
    expect(got.filter((e) => e !== 'hot').sort()).toEqual([...others.values()].sort());
    expect(got.filter((e) => e === 'hot').length).toBeLessThanOrEqual(13);
  });

  gate.it('reads rotate over every partition even when each receive also reclaims', async () => {
    // A short visibility timeout makes a reclaim scan due before every receive: it has its own
    // turn, so it never makes the reads skip every other partition.
    const queue = open({ partitions: 4, visibilityTimeoutMs: 100 });
    for (let i = 0; i < 200; i++) await queue.enqueue(run(`r-${i}`));
    const firstRead: string[] = [];
    for (let call = 0; call < 8; call++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const got = await queue.receive('c1', { max: 2, blockMs: 0 });
      firstRead.push(got[0]!.id.split(':')[0]!);
      for (const d of got) await queue.ack(d);
    }
    expect(new Set(firstRead).size).toBe(4);
  });

  gate.it('a busy queue is read with one command per receive', async () => {
    const queue = open({ partitions: 6 });
    for (let i = 0; i < 120; i++) await queue.enqueue(run(`busy-${i}`));
    await queue.stats(); // connected and its scripts loaded before the count starts
    // MONITOR sees every client of the shared server: count only this queue's reads.
    const monitor = await monitorRedis(REDIS_URL);
    for (let call = 0; call < 6; call++)
      expect(await queue.receive('c1', { max: 6, blockMs: 0 })).toHaveLength(6);
    await raw.ping(); // MONITOR lines precede the reply of a later command on the server
    await new Promise((resolve) => setTimeout(resolve, 50));
    monitor.close();
    const reads = monitor.lines.filter(
      (line) => /"xreadgroup"/i.test(line) && line.includes(`"${prefix}`),
    );
    expect(reads).toHaveLength(6);
  });

  gate.it(
    'a blocked receive wakes for a message on any partition, and keeps none back',
    async () => {
      const queue = open({ partitions: 6 });
      const producer = open({ partitions: 6 });
      for (const id of ['x1', 'x2', 'x3']) {
        const receiving = queue.receive('c1', { max: 1, blockMs: 3000 });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const started = Date.now();
        await producer.enqueue(run(id));
        const [got] = await receiving;
        expect(executionOf(got!)).toBe(id);
        expect(Date.now() - started).toBeLessThan(500);
        await queue.ack(got!);
      }
      expect(await queue.stats()).toMatchObject({ ready: 0, inFlight: 0 });
    },
  );

  gate.it(
    'drain-and-switch to more partitions loses no message (ready, in flight, delayed)',
    async () => {
      const old = open({ partitions: 1, visibilityTimeoutMs: 200 });
      for (let i = 0; i < 30; i++) await old.enqueue(run(`r${i}`));
      for (let i = 0; i < 5; i++)
        await old.enqueue(run(`t${i}`), { delayMs: 300 + i * 10, dedupId: `timer:t${i}` });
      // A worker of the old layout took 3 and died with them (never acknowledged).
      const taken = await old.receive('dead-worker', { max: 3, blockMs: 0 });
      expect(taken).toHaveLength(3);

      // The switch: producers and workers now use the new layout; the old one is drained.
      const next = open({ partitions: 6, visibilityTimeoutMs: 200 });
      const drainer = open({ partitions: 1, visibilityTimeoutMs: 200 });
      let report = await drainQueue(drainer, next);
      expect(report).toMatchObject({ moved: 27, timers: 5, malformed: 0 });
      expect(report.left).toMatchObject({ ready: 0, inFlight: 3, delayed: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the dead worker's 3 expire
      report = await drainQueue(drainer, next);
      expect(report).toMatchObject({ moved: 3, timers: 0 });
      expect(report.left).toMatchObject({ ready: 0, inFlight: 0, delayed: 0, deadLetters: 0 });

      const seen: string[] = [];
      const until = Date.now() + 3000;
      while (seen.length < 35 && Date.now() < until) {
        for (const d of await next.receive('w', { max: 10, blockMs: 100 })) {
          seen.push(executionOf(d));
          await next.ack(d);
        }
      }
      const expected = [
        ...Array.from({ length: 30 }, (_, i) => `r${i}`),
        ...Array.from({ length: 5 }, (_, i) => `t${i}`),
      ];
      expect(seen.sort()).toEqual(expected.sort());
      expect(await next.stats()).toMatchObject({ ready: 0, inFlight: 0, delayed: 0 });
    },
  );
});

describe('Redis Cluster configuration', () => {
  it('parses redis+cluster:// URLs (nodes, credentials, TLS) and rejects bad ones', () => {
    expect(parseClusterUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001')).toEqual({
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
      tls: false,
    });
    expect(parseClusterUrl('rediss+cluster://u:p%40ss@h1:7000,h2/')).toEqual({
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 6379 },
      ],
      username: 'u',
      password: 'p@ss',
      tls: true,
    });
    expect(parseClusterUrl('redis+cluster://:secret@[::1]:7000')).toMatchObject({
      nodes: [{ host: '::1', port: 7000 }],
      password: 'secret',
    });
    for (const bad of [
      'redis://h:1',
      'redis+cluster://',
      'redis+cluster://h:99999',
      'redis+cluster://a:b:c',
    ])
      expect(() => parseClusterUrl(bad), bad).toThrow(StoreConfigurationError);
  });

  it('the CLI takes a cluster URL as --store, and PLAITA_REDIS_CLUSTER for the queue', () => {
    expect(parseStoreUrl('redis+cluster://h1:7000,h2:7001')).toEqual({
      kind: 'redis',
      url: 'redis+cluster://h1:7000,h2:7001',
    });
    const saved = { url: process.env.PLAITA_REDIS_URL, cluster: process.env.PLAITA_REDIS_CLUSTER };
    try {
      delete process.env.PLAITA_REDIS_URL;
      process.env.PLAITA_REDIS_CLUSTER = 'h1:7000,h2:7001';
      expect(queueRedisUrl(undefined)).toBe('redis+cluster://h1:7000,h2:7001');
      expect(queueRedisUrl('redis://flag:1')).toBe('redis://flag:1');
      delete process.env.PLAITA_REDIS_CLUSTER;
      expect(queueRedisUrl(undefined)).toBeUndefined();
    } finally {
      if (saved.url === undefined) delete process.env.PLAITA_REDIS_URL;
      else process.env.PLAITA_REDIS_URL = saved.url;
      if (saved.cluster === undefined) delete process.env.PLAITA_REDIS_CLUSTER;
      else process.env.PLAITA_REDIS_CLUSTER = saved.cluster;
    }
  });

  it('an unreachable cluster rejects with StoreUnavailableError within connectTimeoutMs', async () => {
    const port = await freePort();
    const store = new RedisExecutionStore(
      { url: `redis+cluster://127.0.0.1:${port}` },
      { connectTimeoutMs: 400 },
    );
    const queue = new RedisStreamQueue(
      { url: `redis+cluster://127.0.0.1:${port}` },
      { connectTimeoutMs: 400, partitions: 3 },
    );
    try {
      for (const call of [() => store.load('e1'), () => queue.stats()]) {
        const started = Date.now();
        await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(1000);
      }
    } finally {
      await store.close();
      await queue.close();
    }
  });

  it('classifies cluster replies by their code: MOVED/ASK/CLUSTERDOWN/TRYAGAIN are transient', () => {
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
    for (const message of [
      'MOVED 3999 127.0.0.1:6381',
      'ASK 3999 127.0.0.1:6381',
      'CLUSTERDOWN The cluster is down',
      'TRYAGAIN Multiple keys request during rehashing of slot',
    ])
      expect(classifyRedisError(reply(message)), message).toBe('unavailable');
    expect(classifyRedisError(reply('CROSSSLOT Keys in request'))).toBe('permanent');
    // Only the first word counts: text later in the message is never matched.
    expect(classifyRedisError(reply('ERR user script said MOVED'))).toBe('permanent');
  });
});
