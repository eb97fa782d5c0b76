import Database from 'better-sqlite3';
import { StoreConfigurationError } from '../../errors.js';
import { loadMigrations, type Migration } from '../sql/migration-files.js';
import { classifySqliteError, classifySqliteOpenError } from './classify-sqlite-error.js';

type Db = Database.Database;
type Statement = Database.Statement;

const MIGRATIONS: Migration[] = loadMigrations(new URL('./migrations/', import.meta.url));

/**
 * One better-sqlite3 connection to a database file, opened and migrated on first use:
 * WAL (readers never block the writer), `synchronous = NORMAL` (durable at every checkpoint of
 * the WAL, safe against application crashes; a power loss may drop the last commits, which is
 * WAL's documented trade-off), `busy_timeout = busyTimeoutMs` (a locked file makes an operation
 * wait at most that long, then SQLITE_BUSY → StoreUnavailableError). Statements are prepared
 * once per connection. An open or migration that fails is retried by the next operation; a
 * path that is not a usable database file fails as StoreConfigurationError naming the path.
 */
export class SqliteDatabase {
  private db: Db | null = null;
  private readonly statements = new Map<string, Statement>();
  private readonly transactions = new Map<unknown, unknown>();
  private closed = false;

  constructor(
    readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  /** Runs synchronous `work` on the open database; driver errors arrive classified. */
  use<T>(work: (db: Db) => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new Error(`the SQLite store for ${this.path} is closed`));
    return new Promise<T>((resolve) => resolve(work(this.open()))).catch((error: unknown) => {
      throw classifySqliteError(error);
    });
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

  /**
   * The driver's transaction wrapper around `work`, made once per connection: building it
   * costs about as much as a small statement, and a save runs one per call.
   */
  transaction<A extends unknown[], T>(
    work: (...args: A) => T,
  ): Database.Transaction<(...args: A) => T> {
    let transaction = this.transactions.get(work) as
      Database.Transaction<(...args: A) => T> | undefined;
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
    if (this.db !== null) return this.db;
    try {
      this.db = openFile(this.path, this.busyTimeoutMs);
    } catch (error) {
      throw classifySqliteOpenError(error, this.path);
    }
    return this.db;
  }
}

/** Opens, configures and migrates the file; a connection that fails any step is closed. */
function openFile(path: string, busyTimeoutMs: number): Db {
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Scratch b-trees in memory, not in temp files: the save's `IN (SELECT … json_each)`
    // builds one per call, and on disk that cost more than the rest of the statement.
    db.pragma('temp_store = MEMORY');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Applies the pending migrations under `BEGIN IMMEDIATE` (the write lock: a second process
 * waits, then finds `user_version` already current and applies nothing). `user_version` lives
 * in the database header, so it commits or rolls back with the migration itself.
 */
function migrate(db: Db): void {
  const latest = MIGRATIONS.length;
  if (userVersion(db) === latest) return;
  db.transaction(() => {
    const current = userVersion(db);
    if (current > latest)
      throw new StoreConfigurationError(
        `the SQLite schema of ${db.name} is at version ${current}, newer than this plaita knows (${latest})`,
      );
    for (const migration of MIGRATIONS.slice(current)) db.exec(migration.sql);
    db.pragma(`user_version = ${latest}`);
  }).immediate();
}

function userVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}
