import type BetterSqlite3 from 'better-sqlite3';
import { loadOptionalPeer } from '../../util/optional-peer.js';

export type SqliteDriver = typeof BetterSqlite3;

let driver: SqliteDriver | undefined;

/** better-sqlite3, loaded on first use (it is an optional peer dependency with a native build). */
export function sqliteDriver(requiredBy = 'the SQLite backend'): SqliteDriver {
  return (driver ??= loadOptionalPeer<SqliteDriver>('better-sqlite3', requiredBy));
}
