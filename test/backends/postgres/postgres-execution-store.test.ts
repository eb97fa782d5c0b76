import { afterAll } from 'vitest';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import { describeExecutionStore } from '../../contracts/execution-store.contract.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { legacyHeader, LAYOUT_KEY_PREFIXES } from '../../contracts/layout-entries.cases.js';
import {
  dropSchema,
  terminateWhileLocked,
  testSchema,
  withAdmin,
} from '../support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_contract');
const applicationName = schema;
afterAll(async () => {
  if (gate.available) await dropSchema(schema);
});

gate.describe('PostgreSQL', () => {
  describeExecutionStore(
    'postgres',
    (options) =>
      new PostgresExecutionStore(
        { connectionString: POSTGRES_URL },
        { schema, applicationName, ...options },
      ),
    {
      outage: () => terminateWhileLocked(schema, applicationName),
      propertyRuns: 60,
      legacyLayout: (_store, state) =>
        withAdmin(async (client) => {
          const header = legacyHeader(state);
          const key = [state.tenantId, state.executionId];
          await client.query(
            `DELETE FROM "${schema}".node_results WHERE tenant_id = $1 AND execution_id = $2 AND left(node_id, 2) = ANY($3)`,
            [...key, LAYOUT_KEY_PREFIXES],
          );
          await client.query(
            `UPDATE "${schema}".executions SET header = $3, header_bytes = $4::integer,
               state_bytes = $4::bigint + (SELECT coalesce(sum(bytes), 0) FROM "${schema}".node_results
                 WHERE tenant_id = $1 AND execution_id = $2)
             WHERE tenant_id = $1 AND execution_id = $2`,
            [...key, header, Buffer.byteLength(header)],
          );
        }),
    },
  );
});
