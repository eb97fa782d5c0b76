/** How the PostgreSQL store lays a state out: json text kept byte for byte, exact size totals. */
import pg from 'pg';
import { afterAll, afterEach, expect } from 'vitest';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import { encodeCheckpoint } from '../../../src/store/checkpoint-parts.js';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { dropSchema, testSchema, withAdmin } from '../support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_storage');
let store: PostgresExecutionStore | undefined;
const open = (): PostgresExecutionStore =>
  (store = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema }));
afterEach(async () => {
  await store?.close();
  store = undefined;
});
afterAll(async () => {
  if (gate.available) await dropSchema(schema);
});

/** header_bytes + Σ node bytes, next to the stored running total. */
const totals = (executionId: string) =>
  withAdmin(async (client) => {
    const { rows } = await client.query<{ stored: string; actual: string }>(
      `SELECT e.state_bytes AS stored, e.header_bytes + coalesce((SELECT sum(bytes) FROM "${schema}".node_results n
         WHERE n.tenant_id = e.tenant_id AND n.execution_id = e.execution_id), 0) AS actual
       FROM "${schema}".executions e WHERE e.execution_id = $1`,
      [executionId],
    );
    return rows[0]!;
  });

gate.describe('PostgreSQL storage layout', () => {
  gate.it(
    'delete leaves no results behind when a save commits while the delete waits on the row',
    async () => {
      const store = open();
      await store.save(newExecutionState({ executionId: 'racing', context: { $NODE: { a: 1 } } }));
      const saver = new pg.Client({ connectionString: POSTGRES_URL });
      await saver.connect();
      try {
        // A save under way: the row locked, a result written, not committed yet.
        await saver.query('BEGIN');
        await saver.query(
          `SELECT 1 FROM "${schema}".executions WHERE tenant_id = 'default' AND execution_id = 'racing' FOR UPDATE`,
        );
        await saver.query(
          `INSERT INTO "${schema}".node_results (tenant_id, execution_id, node_id, seq, value, bytes) VALUES ('default', 'racing', 'b', 9, '2', 1)`,
        );
        const deleting = store.delete('racing');
        await new Promise((resolve) => setTimeout(resolve, 100)); // the delete waits on the lock
        await saver.query('COMMIT');
        expect(await deleting).toBe(true);
      } finally {
        await saver.end();
      }
      const left = await withAdmin(async (client) => {
        const { rows } = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM "${schema}".node_results WHERE execution_id = 'racing'`,
        );
        return Number(rows[0]!.n);
      });
      expect(left).toBe(0);
    },
  );

  gate.it(
    'keeps the codec text byte for byte in json columns, queryable with -> in psql',
    async () => {
      const state = newExecutionState({
        executionId: 'layout',
        status: 'running',
        context: { $NODE: { b: { z: 1, a: new Date(0) }, a: 'x\u0000y' } },
      });
      await open().save(state);
      const expected = encodeCheckpoint(state, undefined, 1 << 24);
      const stored = await withAdmin(async (client) => {
        const header = await client.query<{ text: string; status: string }>(
          `SELECT header::text AS text, header->>'status' AS status FROM "${schema}".executions WHERE execution_id = 'layout'`,
        );
        const nodes = await client.query<{ node_id: string; value: string }>(
          `SELECT node_id, value::text AS value FROM "${schema}".node_results WHERE execution_id = 'layout' ORDER BY seq`,
        );
        return { header: header.rows[0]!, nodes: nodes.rows };
      });
      expect(stored.header.text).toBe(expected.header);
      expect(stored.header.status).toBe('running');
      expect(stored.nodes).toEqual(
        expected.entries.map((e) => ({ node_id: e.key, value: e.text })),
      );
    },
  );

  gate.it(
    'the running size total stays exact under concurrent unfenced incremental saves of one execution',
    async () => {
      const s = open();
      const base = newExecutionState({ executionId: 'sizes' });
      await s.save({ ...base, context: { $NODE: { shared: 'x' } } });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.save(
            {
              ...base,
              version: i + 1,
              context: {
                $NODE: { shared: 'y'.repeat(100 * (i + 1)), [`own${i}`]: 'z'.repeat(i * 10) },
              },
            },
            { changedNodes: ['shared', `own${i}`] },
          ),
        ),
      );
      const { stored, actual } = await totals('sizes');
      expect(Number(stored)).toBe(Number(actual));
    },
  );

  gate.it(
    'a full rewrite of more node results than one statement can bind is written whole',
    async () => {
      const s = open();
      const nodes = Object.fromEntries(Array.from({ length: 16_500 }, (_, i) => [`n${i}`, i]));
      const state = newExecutionState({ executionId: 'many', context: { $NODE: nodes } });
      await s.save(state);
      expect((await s.load('many'))!.context.$NODE).toEqual(nodes);
      const { stored, actual } = await totals('many');
      expect(Number(stored)).toBe(Number(actual));
    },
  );
});
