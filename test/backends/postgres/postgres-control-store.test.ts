import pg from 'pg';
import { afterAll, expect } from 'vitest';
import { StoreClosedError } from '../../../src/errors/store-errors.js';
import { PostgresControlStore } from '../../../src/backends/postgres/postgres-control-store.js';
import { describeControlStore } from '../../contracts/control-store.contract.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { dropSchema, terminateBackends, testSchema } from '../support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_control');
const applicationName = schema;
afterAll(async () => {
  if (gate.available) await dropSchema(schema);
});

/**
 * Another session holds an ACCESS EXCLUSIVE lock on the control table, and every backend of
 * the store is terminated (pg_terminate_backend): the idle ones at once, then each one that
 * waits on the lock. Resolves to the function that ends it.
 */
async function terminateWhileLocked(): Promise<() => Promise<void>> {
  const locker = new pg.Client({ connectionString: POSTGRES_URL });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE "${schema}".control_records IN ACCESS EXCLUSIVE MODE`);
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

gate.describe('PostgreSQL', () => {
  // Each store opens a pool of its own: separate sessions on one schema, as processes are.
  describeControlStore(
    'postgres',
    (options) =>
      new PostgresControlStore(
        { connectionString: POSTGRES_URL },
        { schema, applicationName, poolSize: 4, ...options },
      ),
    { sharedBackend: true, outage: terminateWhileLocked },
  );
});

gate.describe('PostgresControlStore', () => {
  gate.it('a borrowed pool is shared, and left open by close', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    try {
      const key = { collection: 'settings' as const, tenant: '*', id: `pool-${schema}` };
      const first = new PostgresControlStore({ pool }, { schema });
      expect(await first.put(key, 'one')).toBe(1);
      await first.close();
      const second = new PostgresControlStore({ pool }, { schema });
      expect(await second.take(key)).toMatchObject({ version: 1, doc: 'one' });
      await second.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  gate.it(
    'a borrowed pool its owner ended is StoreClosedError, not an outage to retry',
    async () => {
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
      const store = new PostgresControlStore({ pool }, { schema });
      await pool.end();
      const error = await store
        .get({ collection: 'settings', tenant: '*', id: 'x' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreClosedError);
      expect((error as StoreClosedError).retryable).toBe(false);
    },
  );
});
