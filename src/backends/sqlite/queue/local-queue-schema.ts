import type BetterSqlite3 from 'better-sqlite3';
import { loadMigrations, type Migration } from '../../migration-files.js';
import { StoreConfigurationError } from '../../../errors/store-errors.js';

/** Versioned migrations of the queue tables (`migrations/0001_….sql`, append only), read on first open. */
let migrations: Migration[] | undefined;

/**
 * Creates or upgrades the queue tables. The version is a row of our own `queue_meta` table, not
 * `user_version` (the execution store's, in the same file). BEGIN IMMEDIATE takes the write
 * lock before reading it, so two processes opening the file at once apply each migration exactly
 * once (the second waits on busy_timeout, then finds the version current).
 */
export function migrateQueueSchema(db: BetterSqlite3.Database): void {
  migrations ??= loadMigrations(new URL('./migrations/', import.meta.url));
  const pending = migrations;
  const latest = pending.length;
  // Current already (every open after the first): a read, no write lock. A file another
  // process holds for a while must not keep a worker from starting.
  if (schemaVersion(db) === latest) return;
  const migrate = db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS queue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT',
    );
    const row = db.prepare("SELECT value FROM queue_meta WHERE key = 'schema_version'").get() as
      { value: string } | undefined;
    const current = row === undefined ? 0 : Number(row.value);
    if (current > latest) {
      // A newer process migrated the file (a rolling deploy): our configuration, not a transient.
      throw new StoreConfigurationError(
        `the queue tables are at schema version ${current}, newer than this plaita understands (${latest})`,
      );
    }
    if (current === latest) return;
    for (const migration of pending.slice(current)) db.exec(migration.sql);
    db.prepare(
      "INSERT INTO queue_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(String(latest));
  });
  migrate.immediate();
}

/** The queue tables' version, or -1 before the first migration made them. */
function schemaVersion(db: BetterSqlite3.Database): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'queue_meta'")
    .get();
  if (table === undefined) return -1;
  const row = db.prepare("SELECT value FROM queue_meta WHERE key = 'schema_version'").get() as
    { value: string } | undefined;
  return row === undefined ? 0 : Number(row.value);
}
