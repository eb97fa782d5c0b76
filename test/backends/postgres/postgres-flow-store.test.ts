import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import { PostgresFlowStore } from '../../../src/backends/postgres/postgres-flow-store.js';
import { loadMigrations } from '../../../src/backends/migration-files.js';
import { describeFlowStore, type LegacyFlow } from '../../contracts/flow-store.contract.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { dropSchema, testSchema, withAdmin } from '../support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_flows');
const legacySchemas: string[] = [];
// One pool the caller owns, shared by every store of the file: how an application would
// run its flow store beside its execution store.
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
});
afterAll(async () => {
  await pool.end();
  if (gate.available) for (const s of [schema, ...legacySchemas]) await dropSchema(s);
});

/** The schema as the release before flows had tenants shipped it: migrations 1 to 3. */
const BEFORE_TENANTS = loadMigrations(
  new URL('../../../src/backends/postgres/migrations/', import.meta.url),
).slice(0, 3);

/** A new schema at that version (recorded as the migrator does), holding `flows` as rows. */
async function legacySchema(flows: LegacyFlow[]): Promise<string> {
  const legacy = testSchema('plaita_flows_legacy');
  legacySchemas.push(legacy);
  await withAdmin(async (client) => {
    await client.query('BEGIN');
    await client.query(`CREATE SCHEMA "${legacy}"`);
    await client.query(
      `CREATE TABLE "${legacy}".schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(`SET LOCAL search_path TO "${legacy}", pg_temp`);
    for (const migration of BEFORE_TENANTS) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    for (const f of flows)
      await client.query(
        'INSERT INTO flows (flow_hash, flow_id, version, document, created_at) VALUES ($1, $2, $3, $4::json, $5)',
        [f.flowHash, f.flowId, f.version, f.text, f.createdAt],
      );
    await client.query('COMMIT');
  });
  return legacy;
}

gate.describe('PostgreSQL', () => {
  describeFlowStore(
    'postgres',
    (options) => new PostgresFlowStore({ pool }, { schema, ...options }),
    {
      legacy: async (flows) => {
        const legacy = await legacySchema(flows);
        return {
          // Pools of their own: stores opened at once migrate from separate sessions.
          open: () =>
            new PostgresFlowStore(
              { connectionString: POSTGRES_URL },
              { schema: legacy, poolSize: 2 },
            ),
          pin: async (tenantId, flowHash) => {
            const store = new PostgresExecutionStore({ pool }, { schema: legacy });
            try {
              await store.save(
                newExecutionState({ executionId: randomUUID(), tenantId, flowHash }),
              );
            } finally {
              await store.close();
            }
          },
        };
      },
    },
  );
});
