import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect } from 'vitest';
import { StoreUnavailableError } from '../../../src/errors/store-errors.js';
import {
  RedisStreamQueue,
  type RedisStreamQueueOptions,
} from '../../../src/backends/redis/queue/redis-stream-queue.js';
import { queueKeys } from '../../../src/backends/redis/queue/redis-stream-keys.js';
import { preloadScripts } from '../../../src/backends/redis/redis-script.js';
import type { TaskMessage } from '../../../src/queue/task-message.js';
import { describeTaskQueue } from '../../contracts/task-queue.contract.js';
import { freePort, startRedisServer } from '../../support/redis-server.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

const gate = await redisGate();
const run = (executionId: string): TaskMessage => ({
  v: 1,
  kind: 'run',
  executionId,
  tenantId: 't1',
});
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Removes every key of the queue from the shared server (never FLUSHALL). */
async function dropKeys(client: Redis, prefix: string): Promise<void> {
  await client.del(...Object.values(queueKeys('plaita:tasks', prefix)));
}

describeTaskQueue(
  'RedisStreamQueue',
  () => {
    const prefix = `${uniqueName('plaita_test_queue')}:`;
    const keys = queueKeys('plaita:tasks', prefix);
    const raw = new Redis(REDIS_URL);
    const queues: RedisStreamQueue[] = [];
    return Promise.resolve({
      open: (options = {}) => {
        const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix, ...options });
        queues.push(queue);
        return queue;
      },
      injectRaw: async (payload) => {
        await raw.xadd(keys.stream, '*', 'payload', payload);
      },
      storedMessages: () => raw.xlen(keys.stream),
      close: async () => {
        await Promise.all(queues.map((q) => q.close()));
        await dropKeys(raw, prefix);
        await raw.quit();
      },
    });
  },
  gate.describe,
);

gate.describe('RedisStreamQueue on Redis', () => {
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
    prefix = `${uniqueName('plaita_test_queue')}:`;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
    await dropKeys(raw, prefix);
    await raw.quit();
  });

  gate.it(
    'deletes consumers left by stopped workers, never one holding a pending entry',
    async () => {
      const stream = queueKeys('plaita:tasks', prefix).stream;
      const old = open();
      await old.enqueue(run('held'));
      await old.enqueue(run('done'));
      expect(await old.receive('dead-holding', { max: 1, blockMs: 0 })).toHaveLength(1);
      const [done] = await old.receive('dead-empty', { max: 1, blockMs: 0 });
      await old.ack(done!);
      const consumers = async (): Promise<string[]> =>
        ((await raw.call('XINFO', 'CONSUMERS', stream, 'plaita-workers')) as string[][])
          .map((fields) => fields[fields.indexOf('name') + 1]!)
          .sort();
      expect(await consumers()).toEqual(['dead-empty', 'dead-holding']);
      await sleep(250);
      // A worker started later prunes once its first interval has passed.
      const live = open({ staleConsumerMs: 200 });
      await live.enqueue(run('next'));
      await live.receive('live', { max: 1, blockMs: 0 });
      expect(await consumers()).toEqual(['dead-empty', 'dead-holding', 'live']);
      await sleep(250);
      await live.receive('live', { max: 1, blockMs: 0 });
      const deadline = Date.now() + 5_000;
      while ((await consumers()).includes('dead-empty') && Date.now() < deadline) await sleep(20);
      // The consumer holding an entry stays (deleting it would drop the entry); so does the
      // live one, seen within the idle time.
      expect(await consumers()).toEqual(['dead-holding', 'live']);
      const [pending] = (await raw.xpending(stream, 'plaita-workers')) as [number];
      expect(pending).toBe(2);
    },
  );

  gate.it('keeps every key of one queue under one hash tag', async () => {
    const queue = open({ stream: 'orders' });
    await queue.enqueue(run('e1'), { delayMs: 60_000 });
    await queue.enqueue(run('e2'));
    const [d] = await queue.receive('c1', { max: 1, blockMs: 0 });
    await queue.deadLetter(d!, 'malformed');
    const keys = (await raw.keys(`${prefix}*`)).sort();
    expect(keys).toEqual([
      `${prefix}{orders}`,
      `${prefix}{orders}:delayed`,
      `${prefix}{orders}:dlq`,
      `${prefix}{orders}:timers`,
    ]);
    await raw.del(...keys);
  });

  gate.it(
    'enqueues and acks of one tick go out as one command each, in order, ids per message',
    async () => {
      const queue = open();
      await queue.stats(); // connected: the handshake is not counted below
      // On a fresh server (CI) no earlier test may have run these scripts: a first EVALSHA
      // would miss and go again as EVAL. Cached first, so only what the tick sends is counted.
      await preloadScripts(raw);
      const client = (queue as unknown as { connection: { client: Redis } }).connection.client;
      const sent: string[] = [];
      const send = client.sendCommand.bind(client);
      client.sendCommand = (command, stream) => (sent.push(command.name), send(command, stream));
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) => queue.enqueue(run(`b${i}`))),
      );
      expect(new Set(ids).size).toBe(20);
      expect(sent).toEqual(['evalsha']); // add-tasks.lua, once for the 20
      const stream = queueKeys('plaita:tasks', prefix).stream;
      // Each caller got the id of its own message, and the stream holds them in call order.
      const entries = await raw.xrange(stream, '-', '+');
      expect(entries.map(([id]) => id)).toEqual(ids);
      expect(
        entries.map(([, fields]) => (JSON.parse(fields[1]!) as TaskMessage).executionId),
      ).toEqual(Array.from({ length: 20 }, (_, i) => `b${i}`));
      const deliveries = await queue.receive('c1', { max: 20, blockMs: 0 });
      expect(deliveries).toHaveLength(20);
      sent.length = 0;
      await Promise.all([...deliveries, deliveries[0]!].map((d) => queue.ack(d))); // one twice
      expect(sent).toEqual(['evalsha']); // ack.lua, once for the 21
      expect(await raw.xlen(stream)).toBe(0);
      expect(await queue.stats()).toMatchObject({ ready: 0, inFlight: 0 });
      await queue.close();
      await expect(queue.enqueue(run('late'))).rejects.toMatchObject({ code: 'store_closed' });
    },
  );

  gate.it('takes the contract’s one-object form: connection and options together', async () => {
    const queue = new RedisStreamQueue({ url: REDIS_URL, prefix, stream: 'one-object' });
    opened.push(queue);
    await queue.enqueue(run('e1'));
    expect(await raw.exists(`${prefix}{one-object}`)).toBe(1);
    const [delivery] = await queue.receive('c1', { max: 1, blockMs: 0 });
    expect(delivery?.parsed).toMatchObject({ ok: true, message: { executionId: 'e1' } });
  });

  gate.it('rejects a stream name that would break the hash tag', () => {
    expect(() => new RedisStreamQueue({ url: REDIS_URL }, { stream: 'a{b}' })).toThrow(TypeError);
  });

  gate.it('delivers a stream entry without a payload field as malformed', async () => {
    const queue = open();
    await raw.xadd(queueKeys('plaita:tasks', prefix).stream, '*', 'foo', 'bar');
    const [d] = await queue.receive('c1', { max: 1, blockMs: 0 });
    expect(d).toMatchObject({ deliveryCount: 1, payload: '{"foo":"bar"}', parsed: { ok: false } });
    await queue.deadLetter(d!, 'malformed');
    expect((await queue.listDeadLetters()).items[0]).toMatchObject({
      payload: '{"foo":"bar"}',
      executionId: null,
    });
  });

  gate.it('drops entries deleted while pending instead of delivering them empty', async () => {
    const queue = open({ visibilityTimeoutMs: 100 });
    await queue.enqueue(run('gone'));
    await queue.enqueue(run('kept'));
    const [gone, kept] = await queue.receive('c1', { max: 2, blockMs: 0 });
    await raw.xdel(queueKeys('plaita:tasks', prefix).stream, gone!.id);
    await sleep(150);
    const again = await queue.receive('c2', { max: 5, blockMs: 0 });
    expect(again.map((d) => d.id)).toEqual([kept!.id]);
    expect(again[0]!.deliveryCount).toBe(2);
  });

  gate.it(
    'finds an expired delivery behind a long run of renewed ones (the scan continues)',
    async () => {
      const queue = open({ visibilityTimeoutMs: 300 });
      for (let i = 0; i < 60; i++) await queue.enqueue(run(`e${i}`));
      const held = await queue.receive('c1', { max: 60, blockMs: 0 });
      expect(held).toHaveLength(60);
      await sleep(350);
      for (const d of held.slice(0, 59)) expect(await queue.renew(d, 'c1')).toBe(true);
      // One XAUTOCLAIM round inspects at most 10 x COUNT entries: with COUNT 1 the expired entry
      // at position 60 is only reached because each receive continues where the last one stopped.
      let found: Awaited<ReturnType<typeof queue.receive>> = [];
      for (let attempt = 0; attempt < 10 && found.length === 0; attempt++) {
        found = await queue.receive('c2', { max: 1, blockMs: 0 });
        if (found.length === 0) await sleep(40);
      }
      expect(found).toMatchObject([{ id: held[59]!.id, deliveryCount: 2 }]);
    },
  );

  gate.it('recreates the consumer group when the stream was deleted', async () => {
    const queue = open();
    await queue.enqueue(run('e1'));
    expect(await queue.receive('c1', { max: 1, blockMs: 0 })).toHaveLength(1);
    await raw.del(queueKeys('plaita:tasks', prefix).stream);
    await queue.enqueue(run('e2'));
    const [d] = await queue.receive('c1', { max: 1, blockMs: 0 });
    expect(d!.parsed).toMatchObject({ ok: true, message: { executionId: 'e2' } });
    expect(await queue.renew(d!, 'c1')).toBe(true);
  });

  gate.it('leaves a borrowed client open on close', async () => {
    const client = new Redis(REDIS_URL);
    try {
      const queue = new RedisStreamQueue({ client }, { prefix });
      await queue.enqueue(run('e1'));
      expect(await queue.receive('c1', { max: 1, blockMs: 200 })).toHaveLength(1);
      await queue.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });

  gate.it('rejects within connectTimeoutMs when nothing listens on the port', async () => {
    const port = await freePort();
    const queue = new RedisStreamQueue(
      { url: `redis://127.0.0.1:${port}` },
      { connectTimeoutMs: 500 },
    );
    try {
      for (const operation of [
        () => queue.enqueue(run('e1')),
        () => queue.receive('c1', { max: 1, blockMs: 5000 }),
        () => queue.stats(),
      ]) {
        const started = Date.now();
        await expect(operation()).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(1500);
      }
    } finally {
      await queue.close();
    }
  });

  gate.it(
    'rejects with StoreUnavailableError while the server is down and works again after restart',
    async () => {
      const server = await startRedisServer({ persistence: 'aof' });
      const queue = new RedisStreamQueue(
        { url: server.url },
        { connectTimeoutMs: 1000, visibilityTimeoutMs: 300 },
      );
      try {
        await queue.enqueue(run('before'));
        const [inFlight] = await queue.receive('c1', { max: 1, blockMs: 0 });
        await server.kill('SIGKILL');
        const failures = await Promise.allSettled([
          queue.enqueue(run('during')),
          queue.receive('c1', { max: 1, blockMs: 500 }),
          queue.ack(inFlight!),
          queue.renew(inFlight!, 'c1'),
          queue.stats(),
        ]);
        for (const failure of failures) {
          expect(failure.status).toBe('rejected');
          expect((failure as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
        }
        await server.restart();
        // The unacknowledged message survived (AOF) and comes back after its visibility timeout.
        await sleep(350);
        const [again] = await queue.receive('c2', { max: 1, blockMs: 2000 });
        expect(again).toMatchObject({ id: inFlight!.id, deliveryCount: 2 });
        await queue.ack(again!);
        await queue.enqueue(run('after'));
        const [after] = await queue.receive('c2', { max: 1, blockMs: 2000 });
        expect(after!.parsed).toMatchObject({ ok: true, message: { executionId: 'after' } });
      } finally {
        await queue.close();
        await server.stop();
      }
    },
  );

  gate.it('a blocked receive survives a restart of the server', async () => {
    const server = await startRedisServer({ persistence: 'aof' });
    const queue = new RedisStreamQueue({ url: server.url }, { connectTimeoutMs: 1000 });
    try {
      await queue.stats(); // connected
      const receiving = queue.receive('c1', { max: 1, blockMs: 3000 }).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      await sleep(100);
      await server.kill('SIGKILL');
      const outcome = await receiving;
      if (!outcome.ok) expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
      await server.restart();
      // Until the client has reconnected (its retry may come after connectTimeoutMs on a busy
      // machine) a call fails as StoreUnavailableError, retryable by contract: retry it.
      const deadline = Date.now() + 15_000;
      for (;;) {
        const sent = await queue.enqueue(run('after')).then(
          () => null,
          (error: unknown) => error as Error,
        );
        if (sent === null) break;
        expect(sent).toBeInstanceOf(StoreUnavailableError);
        if (Date.now() > deadline) throw sent;
        await sleep(100);
      }
      expect(await queue.receive('c1', { max: 1, blockMs: 2000 })).toHaveLength(1);
    } finally {
      await queue.close();
      await server.stop();
    }
  });
});
