import {
  type ControlKey,
  type ControlPage,
  type ControlQuery,
  type ControlRecord,
  type ControlStore,
  controlLimit,
  type WriteOptions,
} from '../../store/control-store.js';
import { isLockedOut } from './classify-sqlite-error.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../store/execution-store.js';
import { idRange, type IdRange } from '../../store/shared/control-range.js';
import {
  assertStorableKey,
  assertStorableQuery,
  controlPage,
  controlRecord,
  controlWrite,
  isLive,
  isStorableKey,
} from '../../store/shared/control-record.js';
import { SqliteDatabase } from './sqlite-database.js';
import { TickBatch } from '../../util/tick-batch.js';
import { type Clock, systemClock } from '../../util/clock.js';

export type SqliteControlStoreOptions = {
  /** The store's "now", for expiry and write times (default the system clock). */
  clock?: Clock;
} & (
  | {
      /** The database file (created if missing; the execution store's file), or `:memory:`. */
      path: string;
      /** Busy timeout (default 5000): a file locked longer → StoreUnavailableError. */
      connectTimeoutMs?: number;
    }
  | {
      /** A connection the caller opened and owns: shared, never closed by this store. */
      database: SqliteDatabase;
    }
);

interface Row {
  id: string;
  version: number;
  doc: string;
  expiresAt: number | null;
}

const T = 'control_records';
const KEY = 'collection = @collection AND tenant_id = @tenant AND id = @id';
const LIVE = '(expires_at IS NULL OR expires_at > @now)';
const COLUMNS = 'id, version, doc, expires_at AS expiresAt';
const INSERT = `INSERT INTO ${T} (collection, tenant_id, id, version, doc, expires_at) VALUES (@collection, @tenant, @id, 1, @doc, @expiresAt)`;
const CONFLICT = `ON CONFLICT (collection, tenant_id, id) DO UPDATE SET doc = excluded.doc, expires_at = excluded.expires_at`;
const SQL = {
  get: `SELECT ${COLUMNS} FROM ${T} WHERE ${KEY} AND ${LIVE}`,
  /** Inserts, or overwrites a row that has expired: one statement, so one atomic step. */
  create: `${INSERT} ${CONFLICT}, version = 1 WHERE ${T}.expires_at IS NOT NULL AND ${T}.expires_at <= @now`,
  replace: `UPDATE ${T} SET version = version + 1, doc = @doc, expires_at = @expiresAt WHERE ${KEY} AND version = @expected AND ${LIVE}`,
  /** Overwrites: the version goes on from a live row, starts again at 1 over an expired one. */
  put: `${INSERT} ${CONFLICT}, version = CASE WHEN ${T}.expires_at IS NULL OR ${T}.expires_at > @now THEN ${T}.version + 1 ELSE 1 END RETURNING version`,
  /** Deletes the row even when expired (the sweep's work done early); reports it was live. */
  take: `DELETE FROM ${T} WHERE ${KEY} RETURNING ${COLUMNS}`,
  sweep: `DELETE FROM ${T} WHERE rowid IN (SELECT rowid FROM ${T} WHERE expires_at <= @now LIMIT @batch)`,
} as const;

/** Rows removed per statement by the sweep, so it never holds the write lock for long. */
const SWEEP_BATCH = 500;

/** Most writes committed by one transaction. */
const GROUP_COMMIT_MAX = 64;

/**
 * The control store in the SQLite file (better-sqlite3, WAL), beside the executions: one
 * `control_records` table (migration 0005). Every operation is ONE statement, atomic on its
 * own (the writes of one turn share a transaction, each with its own result), so stores in several processes on one file stay exact: create is an upsert that only
 * overwrites an expired row, replace an UPDATE guarded by the version, take a DELETE …
 * RETURNING. Ids list in code-point order (BINARY collation; see store/shared/control-range.ts).
 * Times are its clock's (`options.clock`, the system clock by default).
 */
export class SqliteControlStore implements ControlStore {
  readonly #database: SqliteDatabase;
  readonly #owned: boolean;
  readonly #clock: Clock;

  constructor(options: SqliteControlStoreOptions) {
    this.#clock = options.clock ?? systemClock;
    if ('database' in options) {
      this.#database = options.database;
      this.#owned = false;
    } else {
      this.#database = new SqliteDatabase(
        options.path,
        options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        'SqliteControlStore',
      );
      this.#owned = true;
    }
  }

  async get<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    if (!isStorableKey(key)) return null;
    const row = await this.#database.use(
      () =>
        this.#statement('get').get({ ...params(key), now: this.#clock.now() }) as Row | undefined,
    );
    return row ? toRecord(key, row) : null;
  }

  /**
   * Group commit: the writes of one turn of the event loop run in ONE `BEGIN IMMEDIATE`
   * transaction (one commit instead of one each: an API start writes an idempotency record
   * and an audit entry). A write that throws rolls the whole batch back (SQLite may already
   * have ended the transaction itself, e.g. on a full disk), and each write is then run on its
   * own, so every caller gets its own result or error and nothing is committed half.
   */
  readonly #writes = new TickBatch<() => unknown, unknown>((_, works) => this.#runBatch(works), {
    flushOn: 'turn',
    maxItems: GROUP_COMMIT_MAX,
  });
  readonly #runAll = (works: readonly (() => unknown)[]): unknown[] => works.map((work) => work());

  async #runBatch(works: readonly (() => unknown)[]): Promise<unknown[]> {
    try {
      return await this.#database.use(() =>
        this.#database.transaction(this.#runAll).immediate(works),
      );
    } catch (error) {
      // The file locked past the busy timeout is every write's: one
      // busy timeout, not one per write with the event loop blocked (see SqliteSaves).
      if (works.length === 1 || isLockedOut(error)) throw error;
      return works.map((work) => this.#database.use(work));
    }
  }

  #write<R>(work: () => R): Promise<R> {
    return this.#writes.add('', work) as Promise<R>;
  }

  async create<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<boolean> {
    assertStorableKey(key);
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    const result = await this.#write(() =>
      this.#statement('create').run({ ...params(key), ...write, now }),
    );
    return result.changes === 1;
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
    const result = await this.#write(() =>
      this.#statement('replace').run({ ...params(key), ...write, now, expected: expectedVersion }),
    );
    return result.changes === 1;
  }

  async put<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<number> {
    assertStorableKey(key);
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    const row = await this.#write(
      () => this.#statement('put').get({ ...params(key), ...write, now }) as { version: number },
    );
    return row.version;
  }

  async delete(key: ControlKey): Promise<boolean> {
    return (await this.#take(key)) !== null;
  }

  async take<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    const row = await this.#take(key);
    return row ? toRecord(key, row) : null;
  }

  async list<T>(query: ControlQuery): Promise<ControlPage<T>> {
    assertStorableQuery(query);
    if (!isStorableKey({ tenant: query.tenant, id: '' })) return { items: [], next: null };
    const limit = controlLimit(query);
    const range = idRange(query);
    const rows = await this.#database.use(
      () =>
        this.#database.statement(listSql(range)).all({
          collection: query.collection,
          tenant: query.tenant,
          now: this.#clock.now(),
          limit: limit + 1,
          ...bounds(range),
        }) as Row[],
    );
    const key = { collection: query.collection, tenant: query.tenant };
    return controlPage(
      rows.map((row) => toRecord<T>({ ...key, id: row.id }, row)),
      limit,
    );
  }

  async sweepExpired(now: number = this.#clock.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const { changes } = await this.#database.use(() =>
        this.#statement('sweep').run({ now, batch: SWEEP_BATCH }),
      );
      swept += changes;
      if (changes < SWEEP_BATCH) return swept;
    }
  }

  async close(): Promise<void> {
    await this.#writes.settle(); // writes accepted in this turn are written, not dropped
    if (this.#owned) this.#database.close();
  }

  /** Deletes the row; returns it when it was live (an expired one goes too, returning null). */
  async #take(key: ControlKey): Promise<Row | null> {
    if (!isStorableKey(key)) return null;
    const now = this.#clock.now();
    const row = await this.#write(
      () => this.#statement('take').get(params(key)) as Row | undefined,
    );
    return row && isLive(row.expiresAt, now) ? row : null;
  }

  #statement(name: keyof typeof SQL) {
    return this.#database.statement(SQL[name]);
  }
}

function params(key: ControlKey): { collection: string; tenant: string; id: string } {
  return { collection: key.collection, tenant: key.tenant, id: key.id };
}

function toRecord<T>(key: ControlKey, row: Row): ControlRecord<T> {
  return controlRecord<T>(key, row.version, row.doc, row.expiresAt);
}

/**
 * The keyset query of one range: the primary key's (collection, tenant_id, id) index, walked
 * from the cursor or the prefix in the requested direction, stopping after limit + 1 rows.
 * Only the conditions the query needs are in the text, so each range uses the index fully.
 */
function listSql(range: IdRange): string {
  const conditions = ['collection = @collection', 'tenant_id = @tenant', LIVE];
  if (range.after !== null) conditions.push(range.desc ? 'id < @after' : 'id > @after');
  if (range.from !== null) conditions.push('id >= @from');
  if (range.to !== null) conditions.push('id < @to');
  return `SELECT ${COLUMNS} FROM ${T} WHERE ${conditions.join(' AND ')} ORDER BY id ${range.desc ? 'DESC' : 'ASC'} LIMIT @limit`;
}

function bounds(range: IdRange): Record<string, string> {
  const values: Record<string, string> = {};
  if (range.after !== null) values.after = range.after;
  if (range.from !== null) values.from = range.from;
  if (range.to !== null) values.to = range.to;
  return values;
}
