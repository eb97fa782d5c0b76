/**
 * Every list filter is served by an index (docs/durable-contract.md §3): EXPLAIN of the exact statements the
 * store runs, on 20,000 seeded executions, with the planner's default settings (no
 * `enable_seqscan = off`): each branch is an index scan on the filter's index, walked backwards
 * in order and stopped after `limit + 1` rows, so no Sort and no Seq Scan.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import {
  executionSql,
  POSTGRES_LIST_DIALECT,
} from '../../../src/backends/postgres/postgres-execution-sql.js';
import { planList } from '../../../src/store/shared/list-plan.js';
import { listSql } from '../../../src/store/sql/list-sql.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { LIST_SHAPES, SEED_TARGET, SEEDED_ROWS, seedColumns } from '../support/list-shapes.js';
import { dropSchema, testSchema, withAdmin } from '../support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_explain');
const table = `"${schema}".executions`;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Scan Direction'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

beforeAll(async () => {
  if (!gate.available) return;
  const store = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema });
  await store.list(); // migrates
  await store.close();
  await withAdmin(async (client) => {
    const columns = seedColumns('i', (...parts) => parts.join(' || '));
    await client.query(
      `INSERT INTO ${table} (${SEED_TARGET}) SELECT ${columns} FROM generate_series(1, ${SEEDED_ROWS}) AS i`,
    );
    await client.query(`ANALYZE ${table}`);
  });
});
afterAll(async () => {
  if (gate.available) await dropSchema(schema);
});

gate.describe('PostgreSQL list plans', () => {
  for (const shape of LIST_SHAPES) {
    gate.it(
      `${shape.name}: an index scan on ${shape.index}, walked in order, no Sort, no Seq Scan`,
      async () => {
        const statement = listSql(planList(shape.query), table, Date.now(), POSTGRES_LIST_DIALECT);
        const plan = await withAdmin(async (client) => {
          const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (FORMAT JSON) ${statement.text}`,
            statement.values,
          );
          return rows[0]!['QUERY PLAN'][0].Plan;
        });
        const nodes = nodesOf(plan);
        const scans = nodes.filter((n) => n['Relation Name'] === 'executions');
        expect(scans.length).toBe(
          Array.isArray(shape.query.status) ? shape.query.status.length : 1,
        );
        for (const scan of scans) {
          expect(scan['Node Type']).toBe('Index Scan');
          expect(scan['Index Name']).toBe(shape.index);
          expect(scan['Scan Direction']).toBe('Backward');
        }
        // The index delivers the order: no Sort anywhere (several statuses are merged in order).
        expect(nodes.map((n) => n['Node Type'])).not.toContain('Sort');
        expect(nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      },
    );
  }

  gate.it('the sweep reads the partial expiry index, not the table', async () => {
    const sweep = executionSql(`"${schema}"`).sweep;
    const plan = await withAdmin(async (client) => {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) ${sweep}`,
        [Date.now(), 1000],
      );
      return rows[0]!['QUERY PLAN'][0].Plan;
    });
    const scans = nodesOf(plan).filter(
      (n) => n['Relation Name'] === 'executions' && n['Node Type'] !== 'ModifyTable',
    );
    expect(scans.map((n) => n['Index Name'])).toContain('executions_by_expiry');
    expect(nodesOf(plan).map((n) => n['Node Type'])).not.toContain('Seq Scan');
  });
});
