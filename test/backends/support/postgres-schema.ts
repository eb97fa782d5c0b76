import pg from 'pg';
import { POSTGRES_URL, uniqueName } from '../../support/services.js';

/** A schema name of our own for one test file; dropped by {@link dropSchema}, never anything shared. */
export function testSchema(prefix: string): string {
  return uniqueName(prefix)
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
}

/** Runs `work` on a short-lived admin connection of its own. */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function dropSchema(schema: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
}

/** Terminates the server backends of connections named `applicationName`; returns how many. */
export function terminateBackends(
  applicationName: string,
  onlyWaitingOnLocks = false,
): Promise<number> {
  return withAdmin(async (client) => {
    const { rows } = await client.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
       WHERE application_name = $1 AND pid <> pg_backend_pid() AND ($2::boolean IS FALSE OR wait_event_type = 'Lock')`,
      [applicationName, onlyWaitingOnLocks],
    );
    return rows.filter((r) => r.killed).length;
  });
}

/**
 * The outage of the conformance suite: another connection holds an ACCESS EXCLUSIVE lock on the
 * executions table, and every backend of the store that waits on it is terminated
 * (pg_terminate_backend), its idle ones too. Resolves to the function that ends it.
 */
export async function terminateWhileLocked(
  schema: string,
  applicationName: string,
): Promise<() => Promise<void>> {
  const locker = new pg.Client({ connectionString: POSTGRES_URL });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE "${schema}".executions IN ACCESS EXCLUSIVE MODE`);
  await terminateBackends(applicationName);
  let stopped = false;
  const killer = (async () => {
    while (!stopped) {
      await terminateBackends(applicationName, true);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  return async () => {
    stopped = true;
    await killer;
    await locker.query('ROLLBACK');
    await locker.end();
  };
}
