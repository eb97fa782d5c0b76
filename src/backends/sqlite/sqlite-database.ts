import type BetterSqlite3 from 'better-sqlite3';
import { StoreClosedError, StoreConfigurationError } from '../../errors/store-errors.js';
import { loadMigrations, type Migration } from '../migration-files.js';
import { classifySqliteError } from './classify-sqlite-error.js';
import { openSqliteFile } from './open-sqlite-file.js';
import { sqliteDriver } from './sqlite-driver.js';

type Db = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

/** The stores' schema (`migrations/0001_….sql`, append only), read when a file is first opened. */
let migrations: Migration[] | undefined;

/**
 * One better-sqlite3 connection of the SQLite stores to a database file, opened (see
 * openSqliteFile: WAL, `synchronous = NORMAL`, busy timeout) and migrated on first use.
 * Statements are prepared once per connection. An open or migration that fails is retried by
 * the next operation; a path that is not a usable database file fails as
 * StoreConfigurationError naming the path. better-sqlite3 is loaded when this is built, so a
 * missing driver fails the store's constructor, not its first operation.
 */
export class SqliteDatabase {
  private db: Db | null = null;
  private readonly statements = new Map<string, Statement>();
  private readonly transactions = new Map<unknown, unknown>();
  private closed = false;

  constructor(
    readonly path: string,
    private readonly busyTimeoutMs: number,
    requiredBy = 'the SQLite store',
  ) {
    sqliteDriver(requiredBy);
  }

  /** Runs synchronous `work` on the open database; driver errors arrive classified. */
  use<T>(work: (db: Db) => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new StoreClosedError(`the SQLite store for ${this.path} is closed`));
    return new Promise<T>((resolve) => resolve(work(this.open()))).catch((error: unknown) => {
      throw this.schemaMovedOn(error) ?? classifySqliteError(error, this.path);
    });
  }

  /**
   * A statement that fails with a plain SQLITE_ERROR (no such table or column) after a newer
   * plaita migrated the file under this connection: this process is out of date, not the
   * execution at fault, so it is a StoreConfigurationError (the worker leaves the message for
   * an up-to-date process) instead of a permanent error that would end the execution.
   */
  private schemaMovedOn(error: unknown): StoreConfigurationError | undefined {
    if ((error as { code?: unknown } | null)?.code !== 'SQLITE_ERROR' || this.db === null) return;
    let current: number;
    try {
      current = userVersion(this.db);
    } catch {
      return;
    }
    const known = (migrations ?? []).length;
    if (current <= known) return;
    return new StoreConfigurationError(
      `the SQLite schema of ${this.path} was migrated to version ${current} by a newer plaita while this process (which knows ${known}) had it open: stop older processes before upgrading, then restart this one`,
      { cause: error },
    );
  }

  /** The cached prepared statement for `sql` (call inside `use`). */
  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.open().prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** The first row of the cached statement `sql` (call inside `use`). */
  get<T>(sql: string, params: object): T | undefined {
    return this.statement(sql).get(params) as T | undefined;
  }

  /** Every row of the cached statement `sql` (call inside `use`). */
  all<T>(sql: string, params: object): T[] {
    return this.statement(sql).all(params) as T[];
  }

  /** Runs the cached statement `sql`; how many rows it changed (call inside `use`). */
  run(sql: string, params: object): number {
    return this.statement(sql).run(params).changes;
  }

  /**
   * The driver's transaction wrapper around `work`, made once per connection: building it
   * costs about as much as a small statement, and a save runs one per call.
   */
  transaction<A extends unknown[], T>(
    work: (...args: A) => T,
  ): BetterSqlite3.Transaction<(...args: A) => T> {
    let transaction = this.transactions.get(work) as
      BetterSqlite3.Transaction<(...args: A) => T> | undefined;
    if (transaction === undefined) {
      transaction = this.open().transaction(work);
      this.transactions.set(work, transaction);
    }
    return transaction;
  }

  close(): void {
    this.closed = true;
    this.statements.clear();
    this.transactions.clear();
    this.db?.close();
    this.db = null;
  }

  private open(): Db {
    this.db ??= openSqliteFile(this.path, { busyTimeoutMs: this.busyTimeoutMs, migrate });
    return this.db;
  }
}

/**
 * Applies the pending migrations under `BEGIN IMMEDIATE` (the write lock: a second process
 * waits, then finds `user_version` already current and applies nothing). `user_version` lives
 * in the database header, so it commits or rolls back with the migration itself. (The
 * LocalQueue's tables in the same file keep their own version: see local-queue-schema.ts.)
 */
function migrate(db: Db): void {
  migrations ??= loadMigrations(new URL('./migrations/', import.meta.url));
  const pending = migrations;
  const latest = pending.length;
  const found = userVersion(db);
  if (found === latest) return;
  if (found > latest) throw newerSchema(db, found, latest);
  // A migration may rebuild a table (0007 copies every execution: seconds on a large file), so a
  // process opening the file meanwhile waits for the one migrating instead of failing after
  // the usual busy timeout. Only while the schema is behind: normal locks are short.
  const busyTimeoutMs = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${Math.max(busyTimeoutMs, MIGRATION_WAIT_MS)}`);
  try {
    db.transaction(() => {
      const current = userVersion(db);
      if (current > latest) throw newerSchema(db, current, latest);
      for (const migration of pending.slice(current)) db.exec(migration.sql);
      db.pragma(`user_version = ${latest}`);
    }).immediate();
  } finally {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }
}

function newerSchema(db: Db, current: number, latest: number): StoreConfigurationError {
  return new StoreConfigurationError(
    `the SQLite schema of ${db.name} is at version ${current}, newer than this plaita knows (${latest})`,
  );
}

/** How long opening a file waits for another process's migration of it (10 min). */
const MIGRATION_WAIT_MS = 10 * 60_000;

function userVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}
