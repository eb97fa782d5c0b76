import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { SqliteExecutionStore } from '../../src/store/sqlite/sqlite-execution-store.js';
import { describeExecutionStore } from '../contracts/execution-store.contract.js';
import type { ExecutionStore } from '../../src/store/execution-store.js';

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
describeExecutionStore('sqlite', (options) => new SqliteExecutionStore({ path, ...options }), {
  outage: holdWriteLock,
  propertyRuns: 100,
});
