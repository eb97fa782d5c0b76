import type BetterSqlite3 from 'better-sqlite3';
import { classifySqliteOpenError } from './classify-sqlite-error.js';
import { sqliteDriver } from './sqlite-driver.js';

export type SqliteConnection = BetterSqlite3.Database;

export interface OpenSqliteOptions {
  /** A locked file makes a statement wait at most this long, then SQLITE_BUSY (ms). */
  busyTimeoutMs: number;
  /** Brings the schema up to date on the new connection (the stores' or the queue's tables). */
  migrate?: (db: SqliteConnection) => void;
  /** Who opens the file, for the message when better-sqlite3 is not installed. */
  requiredBy?: string;
}

/**
 * The one way plaita opens a SQLite file, for the stores (SqliteDatabase) and the LocalQueue
 * alike, so several connections to one file always agree:
 * - WAL: readers never block the writer;
 * - `synchronous = NORMAL`: durable at every checkpoint of the WAL, safe against application
 *   crashes (a power loss may drop the last commits, WAL's documented trade-off);
 * - `busy_timeout = busyTimeoutMs`: a locked file waits that long, then SQLITE_BUSY →
 *   StoreUnavailableError;
 * - `wal_autocheckpoint = 4000` pages (16 MB of WAL, SQLite's default is 1000): a busy file
 *   rewrites the same hot pages (the executions row, its indexes, the queue) all the time, and a
 *   checkpoint copies each once however often it changed, so checkpointing a quarter as often
 *   copies far less; at 1000 the checkpoints took about a quarter of the embedded tier's time.
 *   The power-loss window of NORMAL is still the OS's writeback delay;
 * - `journal_size_limit` 64 MiB: a checkpoint that resets the WAL truncates the file to that,
 *   where it would otherwise keep the size of its longest run of overlapping readers for good;
 * - `temp_store = MEMORY`: scratch b-trees in memory, not temp files — the store's save
 *   (`IN (SELECT … json_each)`) and the queue's claim (`UPDATE … RETURNING`) build one per call,
 *   and on disk that costs more than the rest of the statement.
 * Then `migrate`. A connection that fails any step is closed; the failure comes out classified
 * as an open error: a path that cannot be opened or is not a database is a
 * StoreConfigurationError naming the path.
 */
export function openSqliteFile(path: string, options: OpenSqliteOptions): SqliteConnection {
  try {
    const Database = sqliteDriver(options.requiredBy);
    const db = new Database(path, { timeout: Math.floor(options.busyTimeoutMs) });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('wal_autocheckpoint = 4000');
      db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      db.pragma('temp_store = MEMORY');
      options.migrate?.(db);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  } catch (error) {
    throw classifySqliteOpenError(error, path);
  }
}
