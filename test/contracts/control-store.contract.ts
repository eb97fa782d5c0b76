/**
 * THE conformance suite of `ControlStore`: every backend runs this one function from a
 * few-line test file. Each test uses a fresh tenant, so backends may be shared across tests.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import type { Clock } from '../../src/util/clock.js';
import { FakeClock } from '../../src/util/fake-clock.js';
import {
  type ControlKey,
  type ControlPage,
  type ControlStore,
  PLATFORM_TENANT,
  sortableId,
  updateRecord,
} from '../../src/store/control-store.js';

/** Options a backend's factory applies when given (the outage cases ask for a short timeout). */
export interface ControlStoreFactoryOptions {
  connectTimeoutMs?: number;
  /** The store's "now" (the clock case gives a FakeClock). */
  clock?: Clock;
}

export type ControlStoreFactory = (
  options?: ControlStoreFactoryOptions,
) => ControlStore | Promise<ControlStore>;

/**
 * Starts a transient outage of the store's backend (a lock held past the store's
 * `connectTimeoutMs`, a killed server, terminated sessions). Resolves to the function that
 * ends it.
 */
export type ControlOutage = (store: ControlStore) => Promise<() => Promise<void>>;

export interface ControlStoreSuiteOptions {
  /** Runs {@link controlOutageCases} with this outage (backends that can have one). */
  outage?: ControlOutage;
  /**
   * The stores the factory opens are separate connections to ONE backend (as processes
   * sharing it are): runs the cases racing two store objects.
   */
  sharedBackend?: boolean;
}

export function describeControlStore(
  name: string,
  factory: ControlStoreFactory,
  options: ControlStoreSuiteOptions = {},
): void {
  if (options.outage) {
    const outage = options.outage;
    describe(`ControlStore conformance: ${name} (outage)`, () =>
      controlOutageCases(factory, outage));
  }
  describe(`ControlStore conformance: ${name}`, () => {
    const opened: ControlStore[] = [];
    let tenant = '';
    const open = async (options?: ControlStoreFactoryOptions): Promise<ControlStore> => {
      const store = await factory(options);
      opened.push(store);
      tenant = tenant || `t-${randomUUID()}`;
      return store;
    };
    const key = (id: string, collection: ControlKey['collection'] = 'schedules'): ControlKey => ({
      collection,
      tenant,
      id,
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      tenant = '';
    });

    it('create is insert-if-absent; get returns a copy with version 1', async () => {
      const store = await open();
      expect(await store.create(key('a'), { n: 1, nested: { x: [1, 'two'] } })).toBe(true);
      expect(await store.create(key('a'), { n: 2 })).toBe(false);
      const record = await store.get<{ n: number }>(key('a'));
      expect(record).toMatchObject({
        version: 1,
        doc: { n: 1, nested: { x: [1, 'two'] } },
        expiresAt: null,
      });
      record!.doc.n = 99;
      expect((await store.get<{ n: number }>(key('a')))!.doc.n).toBe(1);
      expect(await store.get(key('missing'))).toBeNull();
    });

    it('of 20 concurrent creates of one id exactly one wins', async () => {
      const store = await open();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.create(key('race'), { i })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('replace is compare-and-set on the version', async () => {
      const store = await open();
      await store.create(key('a'), { n: 1 });
      expect(await store.replace(key('a'), { n: 2 }, 1)).toBe(true);
      expect(await store.replace(key('a'), { n: 3 }, 1)).toBe(false);
      expect(await store.get(key('a'))).toMatchObject({ version: 2, doc: { n: 2 } });
      expect(await store.replace(key('absent'), { n: 1 }, 1)).toBe(false);
      const racers = await Promise.all([1, 2, 3].map((n) => store.replace(key('a'), { n }, 2)));
      expect(racers.filter(Boolean)).toHaveLength(1);
    });

    it('updateRecord: 20 concurrent increments all land; null writes nothing; absent is false', async () => {
      const store = await open();
      await store.create(key('counter'), { n: 0 });
      const bump = (doc: { n: number }) => ({ n: doc.n + 1 });
      const landed = await Promise.all(
        Array.from({ length: 20 }, () => updateRecord(store, key('counter'), bump)),
      );
      expect(landed.every(Boolean)).toBe(true);
      expect(await store.get(key('counter'))).toMatchObject({ version: 21, doc: { n: 20 } });
      expect(await updateRecord(store, key('counter'), () => null)).toBe(false);
      expect(await updateRecord(store, key('absent'), bump)).toBe(false);
      // A stale first read with one attempt left loses to the writer that came first.
      const stale = (await store.get<{ n: number }>(key('counter')))!;
      await store.put(key('counter'), { n: 100 });
      expect(await updateRecord(store, key('counter'), bump, { read: stale, attempts: 1 })).toBe(
        false,
      );
      expect(await updateRecord(store, key('counter'), bump, { read: stale, attempts: 2 })).toBe(
        true,
      );
      expect((await store.get<{ n: number }>(key('counter')))!.doc.n).toBe(101);
    });

    it('put creates or overwrites and returns the new version', async () => {
      const store = await open();
      expect(await store.put(key('p'), { n: 1 })).toBe(1);
      expect(await store.put(key('p'), { n: 2 })).toBe(2);
      expect(await store.get(key('p'))).toMatchObject({ version: 2, doc: { n: 2 } });
    });

    it('delete and take: take is single-use under concurrency', async () => {
      const store = await open();
      await store.create(key('d'), 1);
      expect(await store.delete(key('d'))).toBe(true);
      expect(await store.delete(key('d'))).toBe(false);
      await store.create(key('t'), { ticket: true });
      const takes = await Promise.all(Array.from({ length: 10 }, () => store.take(key('t'))));
      expect(takes.filter((t) => t !== null)).toHaveLength(1);
      expect(takes.find((t) => t !== null)).toMatchObject({ doc: { ticket: true } });
      expect(await store.get(key('t'))).toBeNull();
    });

    it('an expired record is absent for every operation, before any sweep', async () => {
      const store = await open();
      // Long enough that a loaded CI machine still reads the record before it expires.
      expect(await store.create(key('e'), 1, { ttlMs: 1000 })).toBe(true);
      expect((await store.get(key('e')))!.expiresAt).toBeGreaterThan(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await store.get(key('e'))).toBeNull();
      expect(await store.take(key('e'))).toBeNull();
      expect(await store.replace(key('e'), 2, 1)).toBe(false);
      expect((await store.list({ collection: 'schedules', tenant })).items).toEqual([]);
      expect(await store.create(key('e'), 3)).toBe(true);
      expect(await store.get(key('e'))).toMatchObject({ version: 1, doc: 3, expiresAt: null });
    });

    it("the store's clock, not the process's, says when a record expires", async () => {
      const clock = new FakeClock(Date.now() + 3600_000);
      const store = await open({ clock });
      expect(await store.create(key('c'), 1, { ttlMs: 1000 })).toBe(true);
      expect((await store.get(key('c')))!.expiresAt).toBe(clock.now() + 1000);
      await clock.advance(1001);
      expect(await store.get(key('c'))).toBeNull();
      expect(await store.sweepExpired()).toBeGreaterThanOrEqual(1);
    });

    it('sweepExpired removes what has expired and nothing else', async () => {
      const store = await open();
      await store.create(key('short'), 1, { ttlMs: 20 });
      await store.create(key('long'), 1);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await store.sweepExpired()).toBeGreaterThanOrEqual(1);
      expect(await store.get(key('long'))).not.toBeNull();
    });

    it('lists in id order both ways with keyset pages, and by prefix', async () => {
      const store = await open();
      const ids = Array.from({ length: 7 }, (_, i) => sortableId(1_700_000_000_000 + i));
      for (const id of [...ids].reverse()) await store.create(key(id, 'audit'), { id });
      await store.create(key('zzz', 'schedules'), 'other collection');
      const collect = async (order: 'asc' | 'desc') => {
        const seen: string[] = [];
        let after: string | null = null;
        for (;;) {
          const page: ControlPage<{ id: string }> = await store.list<{ id: string }>({
            collection: 'audit',
            tenant,
            order,
            limit: 3,
            after,
          });
          seen.push(...page.items.map((item) => item.doc.id));
          if (page.next === null) return seen;
          after = page.next;
        }
      };
      expect(await collect('asc')).toEqual(ids);
      expect(await collect('desc')).toEqual([...ids].reverse());
      await store.create(key('exec-1\u001fa', 'approval_decisions'), 1);
      await store.create(key('exec-1\u001fb', 'approval_decisions'), 2);
      await store.create(key('exec-10\u001fa', 'approval_decisions'), 3);
      const page = await store.list({
        collection: 'approval_decisions',
        tenant,
        prefix: 'exec-1\u001f',
      });
      expect(page.items.map((item) => item.doc)).toEqual([1, 2]);
    });

    it('tenants never see each other, and the platform tenant is its own', async () => {
      const store = await open();
      await store.create(key('same'), 'mine');
      const other = { collection: 'schedules' as const, tenant: `${tenant}-other`, id: 'same' };
      expect(await store.get(other)).toBeNull();
      expect(await store.create(other, 'theirs')).toBe(true);
      expect((await store.get(key('same')))!.doc).toBe('mine');
      expect((await store.list({ collection: 'schedules', tenant })).items).toHaveLength(1);
      await store.create({ collection: 'api_keys', tenant: PLATFORM_TENANT, id: `k-${tenant}` }, 1);
      expect((await store.list({ collection: 'api_keys', tenant })).items).toEqual([]);
      await store.delete({ collection: 'api_keys', tenant: PLATFORM_TENANT, id: `k-${tenant}` });
    });

    it('ids and documents with awkward characters round-trip', async () => {
      const store = await open();
      const id = 'flow:ünï/cödé\u001fv1 {tag}';
      const doc = {
        text: 'line\nbreak "quoted" \\ slash',
        emoji: '🚀',
        nil: null,
        list: [true, 1.5],
      };
      expect(await store.create(key(id, 'flow_versions'), doc)).toBe(true);
      expect((await store.get(key(id, 'flow_versions')))!.doc).toEqual(doc);
      const page = await store.list({ collection: 'flow_versions', tenant, prefix: 'flow:ünï' });
      expect(page.items.map((item) => item.key.id)).toEqual([id]);
    });

    it('every write sets or clears the expiry; over an expired record put starts again at 1', async () => {
      const store = await open();
      const before = Date.now();
      expect(await store.create(key('x'), 1, { ttlMs: 60_000 })).toBe(true);
      const created = await store.get(key('x'));
      expect(created!.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
      expect(created!.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
      expect(await store.replace(key('x'), 2, 1)).toBe(true);
      expect((await store.get(key('x')))!.expiresAt).toBeNull();
      expect(await store.replace(key('x'), 3, 2, { ttlMs: 60_000 })).toBe(true);
      expect((await store.get(key('x')))!.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
      expect(await store.put(key('x'), 4)).toBe(4);
      expect(await store.take(key('x'))).toEqual({
        key: key('x'),
        version: 4,
        doc: 4,
        expiresAt: null,
      });

      expect(await store.put(key('y'), 'a', { ttlMs: 40 })).toBe(1);
      expect(await store.put(key('y'), 'b', { ttlMs: 40 })).toBe(2);
      expect(await store.create(key('z'), 'c', { ttlMs: 40 })).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await store.delete(key('z'))).toBe(false);
      expect(await store.put(key('y'), 'c')).toBe(1);
      expect(await store.get(key('y'))).toMatchObject({ version: 1, doc: 'c', expiresAt: null });
    });

    it('sweepExpired(now) sweeps what has expired by that time', async () => {
      const store = await open();
      await store.create(key('soon'), 1, { ttlMs: 60_000 });
      await store.create(key('never'), 1);
      // Only this suite's records live in this store: the ones with a TTL expire by then.
      expect(await store.sweepExpired(Date.now() + 600_000)).toBeGreaterThanOrEqual(1);
      expect(await store.get(key('soon'))).toBeNull();
      expect(await store.create(key('soon'), 2)).toBe(true);
      expect(await store.get(key('never'))).not.toBeNull();
    });

    const itShared = options.sharedBackend ? it : it.skip;
    itShared(
      'concurrent creates and takes through separate store objects: one winner each',
      async () => {
        const [a, b] = [await open(), await open()];
        const creates = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).create(key('shared'), { i })),
        );
        expect(creates.filter(Boolean)).toHaveLength(1);
        const takes = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).take(key('shared'))),
        );
        expect(takes.filter((t) => t !== null)).toHaveLength(1);
        expect(await a.get(key('shared'))).toBeNull();
      },
    );

    it('ids are compared byte by byte, case-sensitive, not by a locale', async () => {
      const store = await open();
      const ids = ['b', 'a', 'B', 'A', '_', '0', 'é', 'exec-1a', 'exec-1\u001fa', 'a a'];
      for (const id of ids) expect(await store.create(key(id, 'settings'), id)).toBe(true);
      const page = await store.list<string>({ collection: 'settings', tenant, limit: 100 });
      const sorted = ['0', 'A', 'B', '_', 'a', 'a a', 'b', 'exec-1\u001fa', 'exec-1a', 'é'];
      expect(page.items.map((item) => item.doc)).toEqual(sorted);
      const desc = await store.list<string>({ collection: 'settings', tenant, order: 'desc' });
      expect(desc.items.map((item) => item.doc)).toEqual([...sorted].reverse());
    });

    it('keyset pages: next is null exactly on the last page; after, prefix and limit combine', async () => {
      const store = await open();
      for (const id of ['a', 'b', 'c', 'd', 'e', 'f'])
        await store.create(key(`p-${id}`, 'bulk_operations'), id);
      await store.create(key('q-a', 'bulk_operations'), 'q');
      await store.create(key('o-z', 'bulk_operations'), 'o');
      const list = async (query: {
        prefix?: string;
        after?: string | null;
        limit?: number;
        order?: 'asc' | 'desc';
      }) => {
        const page = await store.list<string>({ collection: 'bulk_operations', tenant, ...query });
        return { docs: page.items.map((item) => item.doc), next: page.next };
      };
      expect(await list({ prefix: 'p-', limit: 3 })).toEqual({
        docs: ['a', 'b', 'c'],
        next: 'p-c',
      });
      expect(await list({ prefix: 'p-', limit: 3, after: 'p-c' })).toEqual({
        docs: ['d', 'e', 'f'],
        next: null,
      });
      expect(await list({ prefix: 'p-', order: 'desc', limit: 2, after: 'p-e' })).toEqual({
        docs: ['d', 'c'],
        next: 'p-c',
      });
      expect(await list({ prefix: 'p-', order: 'desc', after: 'p-b' })).toEqual({
        docs: ['a'],
        next: null,
      });
      // A cursor outside the prefix's range: the whole range, or none of it.
      expect((await list({ prefix: 'p-', after: 'a' })).docs).toEqual([
        'a',
        'b',
        'c',
        'd',
        'e',
        'f',
      ]);
      expect((await list({ prefix: 'p-', after: 'z' })).docs).toEqual([]);
      expect((await list({ prefix: 'p-', order: 'desc', after: 'z' })).docs).toEqual([
        'f',
        'e',
        'd',
        'c',
        'b',
        'a',
      ]);
      expect((await list({ prefix: 'p-', order: 'desc', after: 'a' })).docs).toEqual([]);
      expect((await list({ prefix: 'nothing' })).docs).toEqual([]);
      // Limits are clamped to 1..1000; the default page holds all eight.
      expect(await list({ limit: 0 })).toEqual({ docs: ['o'], next: 'o-z' });
      expect((await list({ limit: 5000 })).docs).toHaveLength(8);
      expect(await list({})).toMatchObject({ next: null });
    });

    it('a prefix keeps every id that starts with it, whatever character follows', async () => {
      const store = await open();
      const inside = ['k', 'k0', 'k\uffff', 'k\uffffz', 'k😀', 'k\u{10ffff}', 'k\u{10ffff}x'];
      const outside = ['j\u{10ffff}', 'l', 'K', 'jk'];
      for (const id of [...inside, ...outside]) await store.create(key(id, 'idempotency'), id);
      const pages = async (prefix: string, order: 'asc' | 'desc') => {
        const seen: string[] = [];
        let after: string | null = null;
        for (;;) {
          const page: ControlPage<string> = await store.list<string>({
            collection: 'idempotency',
            tenant,
            prefix,
            order,
            limit: 2,
            after,
          });
          seen.push(...page.items.map((item) => item.doc));
          if (page.next === null) return seen;
          after = page.next;
        }
      };
      // Characters above U+FFFF sort differently in UTF-16 and UTF-8: compare as sets.
      for (const order of ['asc', 'desc'] as const) {
        expect((await pages('k', order)).sort()).toEqual([...inside].sort());
        expect((await pages('k\u{10ffff}', order)).sort()).toEqual(
          ['k\u{10ffff}', 'k\u{10ffff}x'].sort(),
        );
        expect((await pages('k\uffff', order)).sort()).toEqual(['k\uffff', 'k\uffffz'].sort());
      }
    });

    it('documents of every JSON kind round-trip, escapes and large ones included', async () => {
      const store = await open();
      const docs: unknown[] = [
        null,
        0,
        false,
        '',
        [],
        {},
        -1.25e-7,
        { nul: 'a\u0000b', lone: '\ud800', emoji: '😀', deep: [[[{ a: [null] }]]] },
        { big: 'x'.repeat(200_000) },
      ];
      for (const [i, doc] of docs.entries()) {
        expect(await store.create(key(`doc-${i}`), doc)).toBe(true);
        expect((await store.get(key(`doc-${i}`)))!.doc).toEqual(doc);
      }
      const page = await store.list({ collection: 'schedules', tenant, prefix: 'doc-' });
      expect(page.items.map((item) => item.doc)).toEqual(docs);
    });
  });
}

const OUTAGE_CONNECT_TIMEOUT_MS = 1000;

/** What a backend does when it cannot be reached: fail fast, retryable, and recover. */
export function controlOutageCases(factory: ControlStoreFactory, outage: ControlOutage): void {
  let store: ControlStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('a transient failure rejects with StoreUnavailableError (retryable, cause kept) within connectTimeoutMs, writes nothing, and the same store works again', async () => {
    store = await factory({ connectTimeoutMs: OUTAGE_CONNECT_TIMEOUT_MS });
    const key: ControlKey = { collection: 'workers', tenant: `t-${randomUUID()}`, id: 'w1' };
    expect(await store.put(key, { beat: 1 })).toBe(1);
    const restore = await outage(store);
    let error: unknown;
    let elapsedMs = 0;
    try {
      const started = Date.now();
      error = await store.put(key, { beat: 2 }).then(
        () => null,
        (rejection: unknown) => rejection,
      );
      elapsedMs = Date.now() - started;
    } finally {
      await restore();
    }
    expect(elapsedMs).toBeLessThan(OUTAGE_CONNECT_TIMEOUT_MS + 2000);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ code: 'store_unavailable', retryable: true });
    expect((error as Error).cause).toBeDefined();
    expect(await store.get(key)).toMatchObject({ version: 1, doc: { beat: 1 } });
    expect(await store.put(key, { beat: 3 })).toBe(2);
  });
}
