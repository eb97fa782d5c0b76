import { Redis, type Command } from 'ioredis';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { keySlot } from '../../../src/backends/redis/key-slot.js';
import { ControlKeys } from '../../../src/backends/redis/store/control-keys.js';
import { RedisControlStore } from '../../../src/backends/redis/store/redis-control-store.js';
import {
  controlOutageCases,
  describeControlStore,
} from '../../contracts/control-store.contract.js';
import { startRedisServer, type PrivateRedisServer } from '../../support/redis-server.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

/**
 * The shared conformance suite against the shared Redis under a unique key prefix; its outage
 * case against a private redis-server killed (SIGKILL) and restarted on the same port and AOF
 * dir; and the key layout: every script call touches one slot, and nothing sends SCAN/KEYS.
 */
const gate = await redisGate();
const prefix = uniqueName('plaita-control');

if (gate.available) {
  // A borrowed client records every command of the suite, and must stay open after it.
  const recorded: { name: string; args: string[] }[] = [];
  let client: Redis;
  beforeAll(() => {
    client = new Redis(REDIS_URL, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command: Command, stream?: never) => {
      recorded.push({
        name: command.name.toUpperCase(),
        args: command.args.map((a) => (Buffer.isBuffer(a) ? a.toString('utf8') : String(a))),
      });
      return send(command, stream);
    };
  });

  describeControlStore(
    'redis',
    (options) => new RedisControlStore({ client }, { prefix, ...options }),
    {
      sharedBackend: true,
    },
  );
  // Owned clients too (each store its own connection), for the racing cases.
  describeControlStore(
    'redis (own connections)',
    (options) => new RedisControlStore({ url: REDIS_URL }, { prefix, ...options }),
    { sharedBackend: true },
  );

  describe('ControlStore conformance: redis (private server, outage)', () => {
    let server: PrivateRedisServer | undefined;
    beforeAll(async () => {
      server = await startRedisServer({ persistence: 'aof' });
    });
    afterAll(async () => {
      await server?.stop();
    });
    controlOutageCases(
      (options) => new RedisControlStore({ url: server!.url }, { prefix, ...options }),
      async () => {
        await server!.kill('SIGKILL');
        return () => server!.restart();
      },
    );
  });

  describe('RedisControlStore key layout', () => {
    gate.it('every script call touches the keys of one slot; no SCAN, no KEYS', () => {
      const scripts = recorded.filter((r) => r.name === 'EVALSHA' || r.name === 'EVAL');
      expect(scripts.length).toBeGreaterThan(50);
      for (const r of scripts) {
        const keys = r.args.slice(2, 2 + Number(r.args[1]));
        expect(new Set(keys.map(keySlot)).size, keys.join(' ')).toBe(1);
      }
      const names = new Set(recorded.map((r) => r.name));
      for (const forbidden of ['SCAN', 'KEYS', 'HSCAN', 'SSCAN', 'ZSCAN'])
        expect(names.has(forbidden), forbidden).toBe(false);
    });

    gate.it('keys are hash-tagged per (collection, tenant) and escape their parts', () => {
      const keys = new ControlKeys('p');
      const record = keys.record({ collection: 'audit', tenant: 'a{b}:c', id: 'x:{y}%' });
      expect(record).toBe('p:{ctl:audit:a%7Bb%7D%3Ac}:rec:x%3A%7By%7D%25');
      expect(keys.index('audit', 'a{b}:c')).toBe('p:{ctl:audit:a%7Bb%7D%3Ac}:ids');
      expect(keySlot(record)).toBe(keySlot(keys.index('audit', 'a{b}:c')));
      expect(keys.expiring).toBe('p:ctl:expiring');
      expect(() => new ControlKeys('a{b}')).toThrow(RangeError);
    });
  });

  describe('RedisControlStore index upkeep', () => {
    const keys = new ControlKeys(prefix);
    const key = (id: string) => ({ collection: 'stream_tickets' as const, tenant: `t-${id}`, id });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const expiring = async (k: ReturnType<typeof key>) =>
      client.zscore(keys.expiring, JSON.stringify([k.collection, k.tenant, k.id]));

    gate.it(
      'the sweep removes the index entry an expired record leaves, and its expiring entry',
      async () => {
        const store = new RedisControlStore({ client }, { prefix });
        const k = key(`sweep-${Date.now()}`);
        await store.create(k, 1, { ttlMs: 30 });
        expect(await expiring(k)).not.toBeNull();
        await sleep(80);
        expect(await store.sweepExpired()).toBeGreaterThanOrEqual(1);
        expect(await client.zcard(keys.index(k.collection, k.tenant))).toBe(0);
        expect(await client.exists(keys.record(k))).toBe(0);
        expect(await expiring(k)).toBeNull();
        await store.close();
      },
    );

    gate.it(
      'a record rewritten with a later expiry, or none, is kept and its entry settled',
      async () => {
        const store = new RedisControlStore({ client }, { prefix });
        const later = key(`later-${Date.now()}`);
        const never = key(`never-${Date.now()}`);
        await store.put(later, 1, { ttlMs: 30 });
        await store.put(never, 1, { ttlMs: 30 });
        // As if the rewrites' expiring entries were lost: only the records change.
        await client.hset(keys.record(later), 'exp', String(Date.now() + 60_000));
        await client.pexpire(keys.record(later), 60_000);
        await client.hdel(keys.record(never), 'exp');
        await client.persist(keys.record(never));
        await sleep(80);
        await store.sweepExpired();
        expect(await store.get(later)).toMatchObject({ version: 1 });
        expect(await store.get(never)).toMatchObject({ version: 1, expiresAt: null });
        expect(Number(await expiring(later))).toBeGreaterThan(Date.now());
        expect(await expiring(never)).toBeNull();
        await store.close();
      },
    );

    gate.it('list skips and prunes entries whose record Redis already removed', async () => {
      const store = new RedisControlStore({ client }, { prefix });
      const tenant = `t-list-${Date.now()}`;
      const at = (id: string) => ({ collection: 'workers' as const, tenant, id });
      for (const id of ['a', 'b', 'c', 'd']) await store.create(at(id), id);
      await client.del(keys.record(at('b')), keys.record(at('c')));
      const page = await store.list<string>({ collection: 'workers', tenant, limit: 2 });
      expect(page).toMatchObject({ next: null });
      expect(page.items.map((item) => item.doc)).toEqual(['a', 'd']);
      expect(await client.zrange(keys.index('workers', tenant), 0, -1)).toEqual(['a', 'd']);
      await store.close();
    });
  });

  afterAll(async () => {
    expect(await client.ping()).toBe('PONG'); // still open after every store closed
    // Test clean-up only (the store itself never scans): drop every key of this run's prefix.
    let cursor = '0';
    do {
      const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (found.length > 0) await client.unlink(...found);
      cursor = next;
    } while (cursor !== '0');
    client.disconnect();
  });
} else {
  gate.describe('ControlStore conformance: redis', () => undefined);
}
