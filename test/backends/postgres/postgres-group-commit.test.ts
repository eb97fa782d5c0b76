/**
 * PostgreSQL group commit (issue 11): the saves of one turn go as ONE statement; when that
 * statement cannot run as one (here: one execution's row is locked by another transaction for
 * longer than the batch waits), every save is sent again on its own, so the others land at once
 * and the locked one lands when the lock goes — none is lost or failed for another's reason.
 */
import pg from 'pg';
import { afterAll, afterEach, expect } from 'vitest';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import { dropSchema, testSchema } from '../support/postgres-schema.js';

const gate = await postgresGate();
const schema = testSchema('plaita_group_commit');
let store: PostgresExecutionStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});
afterAll(async () => {
  if (gate.available) await dropSchema(schema);
});

gate.describe('PostgreSQL group commit', () => {
  gate.it(
    'a batch blocked by one locked row is sent again save by save: the others land at once',
    async () => {
      store = new PostgresExecutionStore({ connectionString: POSTGRES_URL }, { schema });
      const states = ['a', 'b', 'c'].map((id) =>
        newExecutionState({ executionId: `gc-${id}`, status: 'running' }),
      );
      await Promise.all(states.map((s) => store!.save(s)));
      const locker = new pg.Client({ connectionString: POSTGRES_URL });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(
          `SELECT 1 FROM "${schema}".executions WHERE execution_id = 'gc-b' FOR UPDATE`,
        );
        const next = states.map((s) => ({
          ...s,
          version: s.version + 1,
          status: 'suspended' as const,
        }));
        const landed: string[] = [];
        const saves = next.map((s) => store!.save(s).then(() => void landed.push(s.executionId)));
        // a and c do not wait for b's lock.
        await Promise.all([saves[0], saves[2]]);
        expect(landed.sort()).toEqual(['gc-a', 'gc-c']);
        await locker.query('COMMIT');
        await saves[1];
        const loaded = await Promise.all(next.map((s) => store!.load(s.executionId)));
        expect(loaded.map((s) => [s?.executionId, s?.status, s?.version])).toEqual(
          next.map((s) => [s.executionId, 'suspended', s.version]),
        );
      } finally {
        await locker.end();
      }
    },
  );
});
