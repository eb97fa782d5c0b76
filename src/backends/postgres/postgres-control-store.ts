import type { QueryResultRow } from 'pg';
import {
  type ControlKey,
  type ControlPage,
  type ControlQuery,
  type ControlRecord,
  type ControlStore,
  controlLimit,
  type WriteOptions,
} from '../../store/control-store.js';
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
import { PostgresConnection, type PostgresSource } from './postgres-connection.js';
import { migrate, quoteSchema } from './postgres-migrations.js';
import { namedRows } from './statement-name.js';
import { type Clock, systemClock } from '../../util/clock.js';

export interface PostgresControlStoreOptions {
  /** The execution store's schema (default `plaita`). */
  schema?: string;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  poolSize?: number;
  /** The store's "now", for expiry and write times (default the system clock). */
  clock?: Clock;
}

interface Row {
  id: string;
  /** bigint columns arrive as text. */
  version: string;
  doc: string;
  expires_at: string | null;
}

/** Rows removed per statement by the sweep. */
const SWEEP_BATCH = 1000;

/**
 * The control store beside the executions: one `control_records` table (migration 0005) in the
 * store's schema. Pass the execution store's `{pool}` to share its connections; a pool passed
 * in stays the caller's (`close` does not end it).
 *
 * Every operation is ONE statement, atomic under READ COMMITTED: create is
 * `INSERT … ON CONFLICT DO UPDATE … WHERE <the row has expired>` (of concurrent creates one
 * inserts, the others wait on its key and then find a live row), replace an UPDATE guarded by
 * the version (a racer waiting on the row lock re-checks the version it finds), take a
 * `DELETE … RETURNING` (a racer finds the row gone). Ids are `COLLATE "C"`, so they list in
 * byte order of their UTF-8 text, whatever the database's collation. Times are its clock's
 * (`options.clock`, the system clock by default). Driver errors are classified (classify-pg-error.ts) by the connection.
 */
export class PostgresControlStore implements ControlStore {
  readonly #connection: PostgresConnection;
  readonly #table: string;
  readonly #sql: ReturnType<typeof controlSql>;
  readonly #clock: Clock;

  constructor(source: PostgresSource, options: PostgresControlStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    const schema = options.schema ?? 'plaita';
    this.#table = `${quoteSchema(schema)}.control_records`;
    this.#sql = controlSql(this.#table);
    this.#connection = new PostgresConnection(
      source,
      {
        connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
        applicationName: options.applicationName ?? 'plaita',
        poolSize: options.poolSize ?? 4,
        requiredBy: 'PostgresControlStore',
      },
      (client) => migrate(client, schema),
    );
  }

  async get<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    if (!isStorableKey(key)) return null;
    const [row] = await this.#query<Row>(this.#sql.get, [...keyValues(key), this.#clock.now()]);
    return row ? toRecord(key, row) : null;
  }

  async create<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<boolean> {
    assertStorableKey(key);
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    const rows = await this.#query(this.#sql.create, [
      ...keyValues(key),
      write.doc,
      write.expiresAt,
      now,
    ]);
    return rows.length === 1;
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
    const rows = await this.#query(this.#sql.replace, [
      ...keyValues(key),
      write.doc,
      write.expiresAt,
      now,
      expectedVersion,
    ]);
    return rows.length === 1;
  }

  async put<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<number> {
    assertStorableKey(key);
    const now = this.#clock.now();
    const write = controlWrite(doc, options, now);
    const [row] = await this.#query<{ version: string }>(this.#sql.put, [
      ...keyValues(key),
      write.doc,
      write.expiresAt,
      now,
    ]);
    return Number(row!.version);
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
    const { text, bounds } = listSql(this.#table, idRange(query));
    const rows = await this.#query<Row>(text, [
      query.collection,
      query.tenant,
      this.#clock.now(),
      limit + 1,
      ...bounds,
    ]);
    const key = { collection: query.collection, tenant: query.tenant };
    return controlPage(
      rows.map((row) => toRecord<T>({ ...key, id: row.id }, row)),
      limit,
    );
  }

  async sweepExpired(now: number = this.#clock.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const [row] = await this.#query<{ swept: number }>(this.#sql.sweep, [now, SWEEP_BATCH]);
      const batch = row?.swept ?? 0;
      swept += batch;
      if (batch < SWEEP_BATCH) return swept;
    }
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  /** Deletes the row; returns it when it was live (an expired one goes too, returning null). */
  async #take(key: ControlKey): Promise<Row | null> {
    if (!isStorableKey(key)) return null;
    const now = this.#clock.now();
    const [row] = await this.#query<Row>(this.#sql.take, keyValues(key));
    return row && isLive(toExpiry(row.expires_at), now) ? row : null;
  }

  #query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    return this.#connection.withClient((client) => namedRows<R>(client, text, values));
  }
}

/** The fixed statements; $1..$3 are always the key (collection, tenant_id, id). */
function controlSql(t: string) {
  const key = 'collection = $1 AND tenant_id = $2 AND id = $3';
  const columns = 'id, version, doc, expires_at';
  const insert = `INSERT INTO ${t} AS r (collection, tenant_id, id, version, doc, expires_at) VALUES ($1, $2, $3, 1, $4, $5::bigint)
ON CONFLICT (collection, tenant_id, id) DO UPDATE SET doc = EXCLUDED.doc, expires_at = EXCLUDED.expires_at`;
  return {
    get: `SELECT ${columns} FROM ${t} WHERE ${key} AND (expires_at IS NULL OR expires_at > $4)`,
    /** Inserts, or overwrites a row that has expired; a row comes back only when written. */
    create: `${insert}, version = 1 WHERE r.expires_at IS NOT NULL AND r.expires_at <= $6 RETURNING 1 AS written`,
    replace: `UPDATE ${t} SET version = version + 1, doc = $4, expires_at = $5::bigint
WHERE ${key} AND version = $7 AND (expires_at IS NULL OR expires_at > $6) RETURNING 1 AS written`,
    /** Overwrites: the version goes on from a live row, starts again at 1 over an expired one. */
    put: `${insert}, version = CASE WHEN r.expires_at IS NULL OR r.expires_at > $6 THEN r.version + 1 ELSE 1 END RETURNING r.version`,
    /** Deletes the row even when expired (the sweep's work done early). */
    take: `DELETE FROM ${t} WHERE ${key} RETURNING ${columns}`,
    /** One batch; SKIP LOCKED lets two sweepers (or a write) proceed without waiting. */
    sweep: `
WITH doomed AS (SELECT collection, tenant_id, id FROM ${t} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED),
  gone AS (DELETE FROM ${t} r USING doomed d WHERE r.collection = d.collection AND r.tenant_id = d.tenant_id AND r.id = d.id RETURNING 1)
SELECT count(*)::int AS swept FROM gone`,
  };
}

/**
 * The keyset query of one range: the primary key's (collection, tenant_id, id) index, walked
 * from the cursor or the prefix in the requested direction, stopping after limit + 1 rows.
 * Only the conditions the query needs are in the text (one prepared statement per shape).
 */
function listSql(t: string, range: IdRange): { text: string; bounds: string[] } {
  const conditions = [
    'collection = $1',
    'tenant_id = $2',
    '(expires_at IS NULL OR expires_at > $3)',
  ];
  const bounds: string[] = [];
  const add = (condition: string, value: string): void => {
    bounds.push(value);
    conditions.push(`${condition} $${bounds.length + 4}`);
  };
  if (range.after !== null) add(range.desc ? 'id <' : 'id >', range.after);
  if (range.from !== null) add('id >=', range.from);
  if (range.to !== null) add('id <', range.to);
  const order = range.desc ? 'DESC' : 'ASC';
  return {
    text: `SELECT id, version, doc, expires_at FROM ${t} WHERE ${conditions.join(' AND ')} ORDER BY id ${order} LIMIT $4`,
    bounds,
  };
}

function keyValues(key: ControlKey): [string, string, string] {
  return [key.collection, key.tenant, key.id];
}

function toExpiry(value: string | null): number | null {
  return value === null ? null : Number(value);
}

function toRecord<T>(key: ControlKey, row: Row): ControlRecord<T> {
  return controlRecord<T>(key, Number(row.version), row.doc, toExpiry(row.expires_at));
}
