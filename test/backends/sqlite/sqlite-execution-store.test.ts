import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';
import { describeExecutionStore } from '../../contracts/execution-store.contract.js';
import type { ExecutionStore } from '../../../src/store/execution-store.js';
import type { ExecutionState } from '../../../src/state/execution-state.js';
import { legacyHeader, LAYOUT_KEY_PREFIXES } from '../../contracts/layout-entries.cases.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-contract-'));
const path = join(dir, 'plaita.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another connection holds the write lock: the store's next save waits out its busy timeout. */
function holdWriteLock(_store: ExecutionStore): Promise<() => Promise<void>> {
  const other = new Database(path);
  other.exec('BEGIN EXCLUSIVE');
  return Promise.resolve(() => {
    other.exec('ROLLBACK');
    other.close();
    return Promise.resolve();
  });
}

// Every store of the suite opens the same real file, as separate connections.
const ROW =
  'SELECT row_id FROM executions WHERE tenant_id = @tenantId AND execution_id = @executionId';

/** The layout before timing entries: timings back in the header, their rows gone. */
function writeLegacyLayout(_store: ExecutionStore, state: ExecutionState): Promise<void> {
  const db = new Database(path);
  try {
    const key = { tenantId: state.tenantId, executionId: state.executionId };
    const header = legacyHeader(state);
    db.prepare(
      `DELETE FROM node_results WHERE execution_row = (${ROW}) AND substr(node_id, 1, 2) IN (@timing, @input)`,
    ).run({ ...key, timing: LAYOUT_KEY_PREFIXES[0], input: LAYOUT_KEY_PREFIXES[1] });
    db.prepare(
      `UPDATE executions SET header = @header, header_bytes = @headerBytes,
         state_bytes = @headerBytes + (SELECT coalesce(sum(bytes), 0) FROM node_results
           WHERE execution_row = executions.row_id)
       WHERE tenant_id = @tenantId AND execution_id = @executionId`,
    ).run({ ...key, header, headerBytes: Buffer.byteLength(header) });
  } finally {
    db.close();
  }
  return Promise.resolve();
}

// Every store of the suite opens the same real file, as separate connections.
describeExecutionStore('sqlite', (options) => new SqliteExecutionStore({ path, ...options }), {
  outage: holdWriteLock,
  propertyRuns: 100,
  legacyLayout: writeLegacyLayout,
});
