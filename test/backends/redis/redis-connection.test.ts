import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, expect } from 'vitest';
import {
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../../src/errors/store-errors.js';
import { RedisConnection } from '../../../src/backends/redis/redis-connection.js';
import { REDIS_URL, redisGate } from '../../support/services.js';

/**
 * The connection layer's own mechanics, on the shared server: the per-call deadline (one
 * shared timer, not one per call) and the batching of one turn's commands into one write.
 */
const gate = await redisGate();
const opened: RedisConnection[] = [];
const borrowed: Redis[] = [];

function connection(
  target: 'owned' | 'borrowed',
  options: { commandTimeoutMs?: number } = {},
): RedisConnection {
  let made: RedisConnection;
  if (target === 'owned') made = new RedisConnection({ url: REDIS_URL }, options);
  else {
    // Borrowed and configured without any command timeout: only our deadline bounds a call.
    const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
    borrowed.push(client);
    made = new RedisConnection({ client }, options);
  }
  opened.push(made);
  return made;
}

gate.describe('RedisConnection', () => {
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    for (const client of borrowed) client.disconnect();
  });

  gate.it(
    'a call that never settles rejects at its deadline as StoreUnavailableError',
    async () => {
      const conn = connection('borrowed', { commandTimeoutMs: 200 });
      expect(await conn.call('warm-up', (c) => c.ping())).toBe('PONG');
      let settleLate: (value: string) => void = () => undefined;
      const started = performance.now();
      const hung = conn.call('hung step', () => new Promise<string>((r) => (settleLate = r)));
      // Calls started later keep their own, later deadline and still succeed meanwhile.
      const fine = conn.call('quick step', (c) => c.ping());
      const error = (await hung.catch((e: unknown) => e)) as StoreUnavailableError;
      const ms = performance.now() - started;
      expect(await fine).toBe('PONG');
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error.message).toContain('hung step');
      expect((error.cause as { code?: string }).code).toBe('ETIMEDOUT');
      expect(ms).toBeGreaterThanOrEqual(250); // commandTimeoutMs + 100, less timer rounding
      expect(ms).toBeLessThan(300 + 400);
      settleLate('too late'); // dropped: the caller already has its answer
      // The shared timer is re-armed for later calls.
      const again = await conn
        .call('hung again', () => new Promise<never>(() => undefined))
        .catch((e: unknown) => e);
      expect(again).toBeInstanceOf(StoreUnavailableError);
    },
  );

  gate.it(
    'a command that throws synchronously rejects classified, without a deadline left',
    async () => {
      const conn = connection('borrowed');
      const error = await conn
        .call('bad step', () => {
          throw Object.assign(new Error('socket gone'), { code: 'ECONNRESET' });
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
    },
  );

  gate.it(
    'a borrowed client is a cluster when ioredis marks it so, whichever copy built it',
    () => {
      expect(connection('borrowed').isCluster).toBe(false);
      // A client of another ioredis copy is no instance of ours: its own `isCluster` mark decides
      // (a single Redis lets one save script touch the indexes of other slots; a cluster does not).
      const foreign = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
      borrowed.push(foreign);
      Object.defineProperty(foreign, 'isCluster', { value: true });
      const made = new RedisConnection({ client: foreign });
      opened.push(made);
      expect(made.isCluster).toBe(true);
    },
  );

  gate.it(
    'the commands of one turn of the event loop leave an owned connection in one socket write',
    async () => {
      const conn = connection('owned');
      expect(await conn.call('warm-up', (c) => c.ping())).toBe('PONG');
      const socket = (conn.client as Redis).stream as Socket & {
        _writev: (...args: unknown[]) => unknown;
        _write: (...args: unknown[]) => unknown;
      };
      let writes = 0;
      const writev = socket._writev.bind(socket);
      const write = socket._write.bind(socket);
      socket._writev = (...args: unknown[]) => (writes++, writev(...args));
      socket._write = (...args: unknown[]) => (writes++, write(...args));
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) => conn.call(`echo ${i}`, (c) => c.echo(`m${i}`))),
      );
      expect(replies).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`));
      expect(writes).toBe(1);

      // Callbacks of one turn of the event loop (here: timers due together, each its own tick,
      // as replies read from several sockets are) share that write too.
      writes = 0;
      const inTimer = (i: number) =>
        new Promise<string>((resolve, reject) =>
          setTimeout(
            () => void conn.call(`echo ${i}`, (c) => c.echo(`t${i}`)).then(resolve, reject),
            0,
          ),
        );
      expect(await Promise.all([inTimer(0), inTimer(1), inTimer(2)])).toEqual(['t0', 't1', 't2']);
      expect(writes).toBe(1);
    },
  );
  gate.it(
    "a URL's database is the one written to; one the server lacks is refused, nothing written",
    async () => {
      const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      const key = `plaita-db-test-${process.pid}-${Date.now()}`;
      const three = new RedisConnection({ url: `${REDIS_URL}/3` });
      const missing = new RedisConnection({ url: `${REDIS_URL}/9999` });
      opened.push(three, missing);
      try {
        await three.call('set', (c) => c.set(key, 'in 3'));
        await admin.select(3);
        expect(await admin.get(key)).toBe('in 3');
        await admin.del(key);
        await admin.select(0);
        const refused = await missing
          .call('set', (c) => c.set(key, 'nowhere'))
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(StoreConfigurationError);
        expect((refused as Error).message).toContain('refused database 9999');
        // Refused for good, not as an outage to wait out.
        await expect(missing.call('get', (c) => c.get(key))).rejects.toBeInstanceOf(
          StoreConfigurationError,
        );
        expect(await admin.exists(key)).toBe(0);
      } finally {
        admin.disconnect();
      }
    },
  );
  gate.it(
    'a server that does not let us ask which database we are on: the SELECT answer decides',
    async () => {
      const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      const user = `plaita-noclient-${process.pid}`;
      const key = `plaita-db-acl-${process.pid}-${Date.now()}`;
      await admin.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '+@all', '-client');
      const url = new URL(REDIS_URL);
      url.username = user;
      const withDb = (db: number) => {
        url.pathname = `/${db}`;
        const made = new RedisConnection({ url: url.toString() }, { connectTimeoutMs: 2000 });
        opened.push(made);
        return made;
      };
      try {
        await withDb(4).call('set', (c) => c.set(key, 'in 4'));
        await admin.select(4);
        expect(await admin.get(key)).toBe('in 4');
        await admin.del(key);
        await admin.select(0);
        await expect(withDb(9999).call('get', (c) => c.get(key))).rejects.toBeInstanceOf(
          StoreConfigurationError,
        );
      } finally {
        await admin.call('ACL', 'DELUSER', user);
        admin.disconnect();
      }
    },
  );
});
