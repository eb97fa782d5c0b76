import type { Pool, PoolClient } from 'pg';
import { errorCode } from '../../errors/plaita-error.js';
import {
  StoreClosedError,
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../errors/store-errors.js';
import { classifyPgError, DISCARD_CONNECTION_SQLSTATES } from './classify-pg-error.js';
import { pgDriver } from './pg-driver.js';

/** Where a PostgreSQL store gets its connections: its own pool, or one the caller owns. */
export type PostgresSource = { connectionString: string } | { pool: Pool };

export interface PostgresConnectionOptions {
  connectTimeoutMs: number;
  /** Server `statement_timeout`, and the client-side limit on one store operation. */
  statementTimeoutMs: number;
  applicationName: string;
  poolSize: number;
  /** Who connects, for the message when `pg` is not installed (only needed to build a pool). */
  requiredBy?: string;
}

/** Runs once per connection object before the first operation (the migrations). */
export type Prepare = (client: PoolClient) => Promise<void>;

/**
 * The pooled connection every PostgreSQL store goes through, so that an operation never hangs
 * and every driver error comes out classified:
 * - checkout races `connectTimeoutMs` (the pool's own connectionTimeoutMillis too, on a pool
 *   we create): a server that is down or unreachable rejects with StoreUnavailableError;
 * - the whole operation races `statementTimeoutMs` (the server enforces it per statement too);
 *   on expiry the client is destroyed, since its connection is in an unknown state;
 * - while a client is checked out our own 'error'/'end' listener records a lost connection
 *   (pg has no listener on checked-out clients: an unhandled 'error' would crash the process),
 *   and such a client is destroyed on release, never reused;
 * - the pool gets an 'error' listener, so an idle client killed by the server
 *   (pg_terminate_backend, a restart) is dropped instead of crashing the process. The next
 *   checkout opens a new connection: the same store works again once the server is back.
 */
export class PostgresConnection {
  readonly pool: Pool;
  private readonly ownsPool: boolean;
  private preparing: Promise<void> | null = null;
  private closed = false;
  private readonly onPoolError = (): void => {
    // The pool has already removed the dead client; nothing else holds it.
  };

  constructor(
    source: PostgresSource,
    private readonly options: PostgresConnectionOptions,
    private readonly prepare: Prepare,
  ) {
    this.ownsPool = !('pool' in source);
    if ('connectionString' in source) checkConnectionString(source.connectionString);
    this.pool =
      'pool' in source
        ? source.pool
        : new (pgDriver(options.requiredBy).Pool)({
            connectionString: source.connectionString,
            connectionTimeoutMillis: options.connectTimeoutMs,
            statement_timeout: options.statementTimeoutMs,
            application_name: options.applicationName,
            max: options.poolSize,
            keepAlive: true,
          });
    this.pool.on('error', this.onPoolError);
  }

  /** Runs `work` on one client, after the migrations; errors come out classified. */
  async withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreClosedError('the PostgreSQL store is closed');
    await this.ready();
    return this.run(work);
  }

  /** `work` inside BEGIN … COMMIT; any error rolls back (a lost connection rolls back itself). */
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient((client) => inTransaction(client, work));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
    else this.pool.removeListener('error', this.onPoolError);
  }

  /** Migrates once; a failure (server down) is retried by the next operation. */
  private ready(): Promise<void> {
    this.preparing ??= this.run(this.prepare).catch((error: unknown) => {
      this.preparing = null;
      throw error;
    });
    return this.preparing;
  }

  private async run<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.checkout();
    const watch = watchConnection(client);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new OperationTimeout(this.options.statementTimeoutMs)),
        this.options.statementTimeoutMs,
      );
    });
    try {
      const result = await Promise.race([work(client), deadline]);
      watch.release(false);
      return result;
    } catch (error) {
      const timedOut = error instanceof OperationTimeout;
      // A connection to a server that became a standby stays one: not back into the pool.
      const stale = DISCARD_CONNECTION_SQLSTATES.has(errorCode(error) ?? '');
      watch.release(timedOut || watch.lost || stale);
      if (timedOut) throw new StoreUnavailableError(error.message, { cause: error });
      throw classifyPgError(error, { connecting: false, connectionLost: watch.lost });
    } finally {
      clearTimeout(timer);
    }
  }

  private async checkout(): Promise<PoolClient> {
    // A pool its owner ended (a borrowed one) never comes back: closed, not a transient outage
    // that the worker would redeliver for ever. Read from the pool's state, not its message.
    const pool = this.pool as Pool & { ending?: boolean; ended?: boolean };
    if (pool.ending === true || pool.ended === true)
      throw new StoreClosedError('the PostgreSQL pool was ended by its owner');
    const connecting = this.pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ConnectTimeout(this.options.connectTimeoutMs)),
        this.options.connectTimeoutMs,
      );
    });
    try {
      return await Promise.race([connecting, timeout]);
    } catch (error) {
      // A connection that arrives after we gave up goes straight back to the pool.
      connecting.then(
        (late) => late.release(),
        () => undefined,
      );
      throw classifyPgError(error, { connecting: true, connectionLost: false });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** `work` inside BEGIN … COMMIT on a client already checked out; any error rolls back. */
export async function inTransaction<T>(
  client: PoolClient,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

interface Watch {
  readonly lost: boolean;
  /** Returns the client to the pool, or destroys it. Once. */
  release(destroy: boolean): void;
}

function watchConnection(client: PoolClient): Watch {
  let lost = false;
  let released = false;
  const onLost = (): void => {
    lost = true;
  };
  client.on('error', onLost);
  client.on('end', onLost);
  return {
    get lost() {
      return lost;
    },
    release(destroy) {
      if (released) return;
      released = true;
      client.release(destroy ? new Error('plaita: connection discarded') : undefined);
      client.removeListener('error', onLost);
      client.removeListener('end', onLost);
    },
  };
}

class ConnectTimeout extends Error {
  constructor(ms: number) {
    super(`no PostgreSQL connection within ${ms} ms`);
    this.name = 'ConnectTimeout';
  }
}

class OperationTimeout extends Error {
  constructor(ms: number) {
    super(`the PostgreSQL operation did not finish within ${ms} ms`);
    this.name = 'OperationTimeout';
  }
}

/**
 * pg reads a URL it cannot parse (a port that is no number) only on the first connect, and
 * throws a TypeError with a stack: a configuration error, said at once, naming the URL.
 */
function checkConnectionString(connectionString: string): void {
  if (!/^postgres(ql)?:\/\//i.test(connectionString)) return; // key=value form: pg's own parser
  try {
    new URL(connectionString);
  } catch {
    const masked = connectionString.replace(/\/\/[^@/]*@/, '//***@');
    throw new StoreConfigurationError(
      `invalid PostgreSQL URL ${masked}: it is not a URL (a port must be a number)`,
    );
  }
}
