import { StateCorruptError, StoreUnavailableError, errorCode } from '../../errors.js';

/**
 * SQLite driver errors by result code (better-sqlite3 puts the extended code name in `code`,
 * e.g. `SQLITE_BUSY_SNAPSHOT`; the primary code is its first word):
 * - BUSY / LOCKED: another connection holds the lock past `busy_timeout` → StoreUnavailableError
 *   (retryable: the lock is released when that writer commits);
 * - CORRUPT / NOTADB: the file is damaged or not a database → StateCorruptError (permanent);
 * - anything else (CANTOPEN, READONLY, FULL, IOERR, CONSTRAINT, …) is returned unchanged and is
 *   permanent: retrying the same write against the same file would fail the same way.
 * Errors that are already PlaitaErrors pass through.
 */
export function classifySqliteError(error: unknown): unknown {
  const code = errorCode(error);
  const primary = code === undefined ? undefined : /^SQLITE_[A-Z]+/.exec(code)?.[0];
  switch (primary) {
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new StoreUnavailableError(
        `the SQLite database is locked by another connection (${code})`,
        { cause: error },
      );
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return new StateCorruptError(`the SQLite file is damaged or not a database (${code})`, {
        cause: error,
      });
    default:
      return error;
  }
}
