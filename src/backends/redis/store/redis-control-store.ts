import {
  type ControlKey,
  type ControlPage,
  type ControlQuery,
  type ControlRecord,
  type ControlStore,
  type WriteOptions,
} from '../../../store/control-store.js';
import {
  assertStorableKey,
  assertStorableQuery,
  controlRecord,
  controlWrite,
  type ControlWrite,
  isStorableKey,
} from '../../../store/shared/control-record.js';
import { isStorableText } from '../../../store/shared/stored-text.js';
import { ControlIndex, decodeFields, expiringMember } from './control-index.js';
import { ControlKeys } from './control-keys.js';
import { CONTROL_SCRIPTS } from './control-scripts.js';
import { RedisConnection, type RedisTarget } from '../redis-connection.js';
import type { RedisStoreOptions } from './redis-execution-store.js';
import { type Clock, systemClock } from '../../../util/clock.js';
import type { RedisScript } from '../redis-script.js';
import { integerAt, stringAt, tagged, unexpected } from './script-reply.js';

/**
 * The control store on Redis, beside the executions (key layout in control-keys.ts): a hash
 * per record and a lexicographic sorted set per (collection, tenant), under one hash tag, so
 * every write is one single-slot script — create, replace, put, delete and take are each
 * atomic on the server (control-*.lua). A TTL is the `exp` field, checked against the
 * store's clock (`options.clock`, the system clock by default) by every read and script, and PEXPIREAT on the hash, so Redis frees
 * the memory by itself. Ids list in byte order of their UTF-8 text (ZRANGEBYLEX), as on the
 * SQL backends. No SCAN, no KEYS: the sweep visits the expiring set only.
 *
 * `{url}`: the store owns its client; `{client}`: borrowed, left open by `close`. Every driver
 * failure arrives classified (StoreUnavailableError when transient; redis-connection.ts).
 */
export class RedisControlStore implements ControlStore {
  readonly #connection: RedisConnection;
  readonly #keys: ControlKeys;
  readonly #index: ControlIndex;
  readonly #clock: Clock;

  constructor(target: RedisTarget, options: RedisStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#keys = new ControlKeys(options.prefix ?? 'plaita');
    this.#connection = new RedisConnection(target, options, 'RedisControlStore');
    this.#index = new ControlIndex(this.#connection, this.#keys, this.#clock);
  }

  async get<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    if (!isStorableKey(key)) return null;
    const now = this.#clock.now();
    const fields = await this.#connection.call(`control get of ${describeKey(key)}`, (client) =>
      client.hmget(this.#keys.record(key), 'v', 'doc', 'exp'),
    );
    return decodeFields<T>(key, fields, now);
  }

  async create<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<boolean> {
    assertStorableKey(key);
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    const reply = await this.#write('create', CONTROL_SCRIPTS.create, key, write, now);
    return integer(reply, 'control-create') === 1;
  }

  async replace<T>(
    key: ControlKey,
    doc: T,
    expectedVersion: number,
    options: WriteOptions = {},
  ): Promise<boolean> {
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    if (!isStorableKey(key) || !Number.isSafeInteger(expectedVersion)) return false;
    const script = CONTROL_SCRIPTS.replace;
    const reply = await this.#write('replace', script, key, write, now, [expectedVersion]);
    return integer(reply, 'control-replace') === 1;
  }

  async put<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<number> {
    assertStorableKey(key);
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    const reply = await this.#write('put', CONTROL_SCRIPTS.put, key, write, now);
    return integer(reply, 'control-put');
  }

  async delete(key: ControlKey): Promise<boolean> {
    if (!isStorableKey(key)) return false;
    const reply = await this.#connection.call(`control delete of ${describeKey(key)}`, (client) =>
      CONTROL_SCRIPTS.delete.run(client, this.#recordKeys(key), [key.id, this.#clock.now()]),
    );
    return integer(reply, 'control-delete') === 1;
  }

  async take<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    if (!isStorableKey(key)) return null;
    const raw = await this.#connection.call(`control take of ${describeKey(key)}`, (client) =>
      CONTROL_SCRIPTS.take.run(client, this.#recordKeys(key), [key.id, this.#clock.now()]),
    );
    const { tag, values } = tagged(raw, 'control-take');
    if (tag === 'NONE') return null;
    if (tag !== 'OK') throw unexpected(raw, 'control-take');
    const exp = stringAt(values, 2, 'control-take');
    return controlRecord<T>(
      key,
      integerAt(values, 0, 'control-take'),
      stringAt(values, 1, 'control-take'),
      exp === '' ? null : Number(exp),
    );
  }

  list<T>(query: ControlQuery): Promise<ControlPage<T>> {
    assertStorableQuery(query);
    if (!isStorableText(query.tenant)) return Promise.resolve({ items: [], next: null });
    return this.#index.list<T>(query);
  }

  /**
   * Redis removes expired hashes itself (PEXPIREAT); this removes the index entries they leave,
   * visiting only the writes with a TTL that are due. Returns how many it removed.
   */
  sweepExpired(now: number = this.#clock.now()): Promise<number> {
    return this.#index.sweep(now);
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  /**
   * Runs one write script. A write with a TTL first enters the expiring set (a separate key:
   * another slot), sent in the same batch just before the script: should the script not write
   * (a lost create) the sweep finds the record as it is and settles the entry.
   */
  #write(
    verb: string,
    script: RedisScript,
    key: ControlKey,
    write: ControlWrite,
    now: number,
    extra: number[] = [],
  ): Promise<unknown> {
    const { doc, expiresAt } = write;
    const args = [key.id, doc, now, expiresAt ?? '', ...extra];
    return this.#connection.call(`control ${verb} of ${describeKey(key)}`, async (client) => {
      const scheduled =
        expiresAt === null
          ? null
          : client.zadd(this.#keys.expiring, expiresAt, expiringMember(key));
      const [, reply] = await Promise.all([
        scheduled,
        script.run(client, this.#recordKeys(key), args),
      ]);
      return reply;
    });
  }

  #recordKeys(key: ControlKey): [string, string] {
    return [this.#keys.record(key), this.#keys.index(key.collection, key.tenant)];
  }
}

function describeKey(key: ControlKey): string {
  return `${key.collection} ${JSON.stringify(key.id)}`;
}

function integer(reply: unknown, script: string): number {
  return integerAt([reply], 0, script);
}
