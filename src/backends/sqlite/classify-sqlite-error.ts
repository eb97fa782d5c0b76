import { PlaitaError, errorCode } from '../../errors/plaita-error.js';
import { StateCorruptError } from '../../errors/state-errors.js';
import { StoreConfigurationError, StoreUnavailableError } from '../../errors/store-errors.js';

/**
 * SQLite driver errors by result code (better-sqlite3 puts the extended code name in `code`,
 * e.g. `SQLITE_BUSY_SNAPSHOT`; the primary code is its first word):
 * - BUSY / LOCKED: another connection holds the lock past `busy_timeout` → StoreUnavailableError
 *   (retryable: the lock is released when that writer commits);
 * - CORRUPT / NOTADB: the file is damaged or not a database → StateCorruptError (permanent);
 * - FULL / IOERR: the disk is full or failing → StoreUnavailableError (an operator frees space or
 *   replaces the disk; permanent, every execution touched meanwhile would end);
 * - READONLY / PERM: this process may not write the file (its or its folder's permissions, a
 *   read-only mount) → StoreConfigurationError naming `path`: the worker leaves its messages
 *   for an operator's fix instead of ending the executions, the CLI says what to check;
 * - anything else (CANTOPEN, CONSTRAINT, …) is returned unchanged and is permanent:
 *   retrying the same write against the same file would fail the same way.
 * Errors that are already PlaitaErrors pass through.
 */
export function classifySqliteError(error: unknown, path = 'the SQLite database'): unknown {
  const primary = primaryCode(error);
  switch (primary) {
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
      if (errorCode(error) === 'SQLITE_READONLY_DBMOVED')
        return new StoreConfigurationError(
          `${path} was moved or deleted while this process had it open (${errorCode(error)}): restart it on the file the others use`,
          { cause: error },
        );
      return new StoreConfigurationError(
        `${path} cannot be written by this process (${errorCode(error)}): check the permissions of the file, of its -wal and -shm files and of its folder, and that the disk is not mounted read-only`,
        { cause: error },
      );
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new StoreUnavailableError(
        `the SQLite database is locked by another connection (${errorCode(error)})`,
        { cause: error },
      );
    case 'SQLITE_FULL':
    case 'SQLITE_IOERR':
      return new StoreUnavailableError(
        `the disk under the SQLite database is full or failing (${errorCode(error)})`,
        { cause: error },
      );
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return new StateCorruptError(
        `the SQLite file is damaged or not a database (${errorCode(error)})`,
        { cause: error },
      );
    default:
      return error;
  }
}

/**
 * Errors while opening (and migrating) the database file at `path`. A path that cannot be
 * opened (CANTOPEN: a directory, a missing or unwritable folder; PERM; READONLY) or a file
 * that is not a SQLite database (NOTADB) is the configuration's fault, not the data's: a
 * StoreConfigurationError naming the path. The rest is classified as on any operation.
 */
export function classifySqliteOpenError(error: unknown, path: string): unknown {
  if (error instanceof PlaitaError) return error;
  const reason = error instanceof Error ? `: ${error.message}` : '';
  switch (primaryCode(error)) {
    case 'SQLITE_NOTADB':
      return new StoreConfigurationError(
        `${path} is not a SQLite database (${errorCode(error)}${reason})`,
        { cause: error },
      );
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
    case 'SQLITE_READONLY':
      return new StoreConfigurationError(
        `cannot open the SQLite database ${path} (${errorCode(error)}${reason})`,
        { cause: error },
      );
    default:
      return classifySqliteError(error);
  }
}

/**
 * The file was locked past the busy timeout (a classified error's driver cause, or the driver
 * error itself): every write of a batch would wait that long again, so a batch is not retried
 * write by write (a full disk is: the others may fit, and there is no wait).
 */
export function isLockedOut(error: unknown): boolean {
  const code = primaryCode((error as { cause?: unknown } | null)?.cause) ?? primaryCode(error);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function primaryCode(error: unknown): string | undefined {
  const code = errorCode(error);
  return code === undefined ? undefined : /^SQLITE_[A-Z]+/.exec(code)?.[0];
}
