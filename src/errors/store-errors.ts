/**
 * What the stores and queues raise: the backend unreachable or misconfigured, a write refused
 * (a stale fence, an execution already stored), a caller's mistake (a cursor it never got).
 */
import { PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

/** The store could not be reached or answered with a transient failure; the caller may retry. */
export class StoreUnavailableError extends PlaitaError {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
  readonly retryable = true;
}

/** A fenced write carried a stale lease generation: another worker now owns the execution. */
export class FenceRejectedError extends PlaitaError {
  override readonly name = 'FenceRejectedError';
  readonly code = 'fence_rejected';
  readonly retryable = false;
}

/** A create-only save found the execution already stored (SaveOptions.createOnly): nothing written. */
export class ExecutionExistsError extends PlaitaError {
  override readonly name = 'ExecutionExistsError';
  readonly code = 'execution_exists';
  readonly retryable = false;
}

/**
 * The store's configuration is wrong: a database or role that does not exist, credentials the
 * server refuses, a path that is not a database file. Retrying the same configuration fails
 * the same way, so unlike `StoreUnavailableError` it is not retryable; fix the URL or path.
 */
export class StoreConfigurationError extends PlaitaError {
  override readonly name = 'StoreConfigurationError';
  readonly code = 'store_misconfigured';
  readonly retryable = false;
}

/**
 * An optional peer dependency is not installed: `plaita` loads a database driver (`better-sqlite3`,
 * `pg`, `ioredis`) or `prom-client` only when something that needs it is built, so an install
 * without it runs everything else. `dependency` names the package to install; retrying without
 * installing it fails the same way.
 */
export class PeerDependencyMissingError extends PlaitaError {
  override readonly name = 'PeerDependencyMissingError';
  readonly code = 'peer_dependency_missing';
  readonly retryable = false;
  readonly dependency: string;

  constructor(dependency: string, message: string, options: PlaitaErrorOptions = {}) {
    super(message, options);
    this.dependency = dependency;
  }
}

/**
 * Redis refused a command for a reason that retrying will not fix: a script error, a key of
 * the wrong type (`WRONGTYPE`), a reply our scripts never produce. `cause` is the driver error;
 * `redisCode` is the reply's first word (e.g. `WRONGTYPE`, `ERR`) when there is one.
 */
export class RedisCommandError extends PlaitaError {
  override readonly name = 'RedisCommandError';
  readonly code = 'store_command_failed';
  readonly retryable = false;
  readonly redisCode: string | undefined;

  constructor(
    message: string,
    options: PlaitaErrorOptions & { redisCode?: string | undefined } = {},
  ) {
    super(message, options);
    this.redisCode = options.redisCode;
  }
}

/** The store was closed (or its borrowed client was ended by its owner): using it is a bug. */
export class StoreClosedError extends PlaitaError {
  override readonly name = 'StoreClosedError';
  readonly code = 'store_closed';
  readonly retryable = false;
}

/** A list was given a cursor it never handed out (a caller's mistake, never the store's state). */
export class InvalidCursorError extends PlaitaError {
  override readonly name = 'InvalidCursorError';
  readonly code = 'invalid_cursor';
  readonly retryable = false;
}
