import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { PostgresFlowStore } from '../../src/store/postgres/postgres-flow-store.js';
import { describeFlowStore } from '../contracts/flow-store.contract.js';
import { POSTGRES_URL, postgresGate } from '../support/services.js';
import { dropSchema, testSchema } from './support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_flows');
// One pool the caller owns, shared by every store of the file: how an application would
// run its flow store beside its execution store.
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
});
afterAll(async () => {
  await pool.end();
  if (gate.available) await dropSchema(schema);
});

gate.describe('PostgreSQL', () => {
  describeFlowStore('postgres', () => new PostgresFlowStore({ pool }, { schema }));
});
