import { afterAll, expect } from 'vitest';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import { PostgresFlowStore } from '../../../src/backends/postgres/postgres-flow-store.js';
import {
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../../src/errors/store-errors.js';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { dropSchema, testSchema, withAdmin } from '../support/postgres-schema.js';

const gate = await postgresGate();
const schemas: string[] = [];
const freshSchema = (): string => {
  const schema = testSchema('plaita_migrate');
  schemas.push(schema);
  return schema;
};
afterAll(async () => {
  if (gate.available) for (const schema of schemas) await dropSchema(schema);
});

const applied = (schema: string) =>
  withAdmin(
    async (client) =>
      (
        await client.query<{ version: number; applied_at: Date }>(
          `SELECT version, applied_at FROM "${schema}".schema_migrations ORDER BY version`,
        )
      ).rows,
  );

gate.describe('PostgreSQL migrations', () => {
  gate.it(
    'several stores (separate pools, so separate sessions) migrating one fresh schema at once all succeed, once',
    async () => {
      const schema = freshSchema();
      const stores = Array.from(
        { length: 4 },
        () => new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema }),
      );
      const flows = new PostgresFlowStore({ connectionString: POSTGRES_URL }, { schema });
      try {
        await Promise.all([
          ...stores.map((store, i) => store.save(newExecutionState({ executionId: `e${i}` }))),
          flows.put({ flow_id: 'f', version: '1', nodes: [] }, {}),
        ]);
        expect((await applied(schema)).map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        expect((await stores[0]!.list()).items).toHaveLength(4);
      } finally {
        await Promise.all([...stores, flows].map((s) => s.close()));
      }
    },
  );

  gate.it('a store on a schema already current applies nothing', async () => {
    const schema = freshSchema();
    const first = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema });
    await first.list();
    await first.close();
    const before = await applied(schema);
    const second = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema });
    await second.list();
    await second.close();
    expect(await applied(schema)).toEqual(before);
  });

  gate.it('a schema migrated by a newer plaita is refused, permanently', async () => {
    const schema = freshSchema();
    const store = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema });
    try {
      await store.list();
      await withAdmin((client) =>
        client.query(
          `INSERT INTO "${schema}".schema_migrations (version, name) VALUES (99, 'future')`,
        ),
      );
      const later = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema });
      const error = await later.list().catch((e: unknown) => e);
      await later.close();
      expect(error).toBeInstanceOf(StoreConfigurationError); // a newer deploy: never redelivered
      expect(error).not.toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/newer than this plaita knows/);
    } finally {
      await store.close();
    }
  });

  gate.it(
    'a role that owns its schema but may not create schemas migrates it (a DBA made the schema)',
    async () => {
      const schema = freshSchema();
      const role = `${schema}_role`;
      await withAdmin(async (client) => {
        await client.query(`CREATE ROLE "${role}" LOGIN`);
        await client.query(`CREATE SCHEMA "${schema}" AUTHORIZATION "${role}"`);
      });
      const url = new URL(POSTGRES_URL);
      url.username = role;
      const store = new PostgresExecutionStore({ connectionString: url.href }, { schema });
      try {
        const state = newExecutionState({ executionId: 'owned' });
        await store.save(state);
        expect((await store.load('owned'))?.executionId).toBe('owned');
      } finally {
        await store.close();
        await dropSchema(schema);
        await withAdmin((client) => client.query(`DROP ROLE "${role}"`));
      }
    },
  );

  gate.it(
    'a database not in UTF8 is refused as misconfigured, before anything is made',
    async () => {
      const database = testSchema('plaita_latin1');
      await withAdmin((client) =>
        client.query(
          `CREATE DATABASE "${database}" ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`,
        ),
      );
      const url = new URL(POSTGRES_URL);
      url.pathname = `/${database}`;
      const store = new PostgresExecutionStore({ connectionString: url.href });
      try {
        const error = await store.list().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreConfigurationError);
        expect((error as Error).message).toMatch(/encoding is LATIN1; plaita needs UTF8/);
      } finally {
        await store.close();
        await withAdmin((client) => client.query(`DROP DATABASE "${database}"`));
      }
    },
  );

  gate.it('rejects a schema name that is not a plain identifier', () => {
    expect(
      () => new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema: 'a"; drop' }),
    ).toThrow(RangeError);
  });
});
