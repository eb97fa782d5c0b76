import { PlaitaError } from '../../errors.js';

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
    options: { cause?: unknown; redisCode?: string | undefined; executionId?: string } = {},
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
