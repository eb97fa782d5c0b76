import { afterAll } from 'vitest';
import { PostgresExecutionStore } from '../../src/store/postgres/postgres-execution-store.js';
import { describeExecutionStore } from '../contracts/execution-store.contract.js';
import { POSTGRES_URL, postgresGate } from '../support/services.js';
import { dropSchema, terminateWhileLocked, testSchema } from './support/postgres-schema.js';

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
    { outage: () => terminateWhileLocked(schema, applicationName), propertyRuns: 60 },
  );
});
