import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { loadMigrations } from '../../../src/backends/migration-files.js';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../../src/backends/sqlite/sqlite-flow-store.js';
import { describeFlowStore, type LegacyFlow } from '../../contracts/flow-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-flows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The schema as the release before flows had tenants shipped it: migrations 1 to 3. */
const BEFORE_TENANTS = loadMigrations(
  new URL('../../../src/backends/sqlite/migrations/', import.meta.url),
).slice(0, 3);

/** A new file at that schema, holding `flows` as rows written directly. */
function legacyFile(flows: LegacyFlow[]): string {
  const path = join(dir, `legacy-${randomUUID()}.db`);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      for (const migration of BEFORE_TENANTS) db.exec(migration.sql);
      db.pragma(`user_version = ${BEFORE_TENANTS.length}`);
      const insert = db.prepare(
        'INSERT INTO flows (flow_hash, flow_id, version, document, created_at) VALUES (?, ?, ?, ?, ?)',
      );
      for (const f of flows) insert.run(f.flowHash, f.flowId, f.version, f.text, f.createdAt);
    })();
  } finally {
    db.close();
  }
  return path;
}

describeFlowStore(
  'sqlite',
  (options) => new SqliteFlowStore({ path: join(dir, 'plaita.db'), ...options }),
  {
    legacy: (flows) => {
      const path = legacyFile(flows);
      return Promise.resolve({
        open: () => new SqliteFlowStore({ path }),
        pin: async (tenantId, flowHash) => {
          const store = new SqliteExecutionStore({ path });
          try {
            await store.save(newExecutionState({ executionId: randomUUID(), tenantId, flowHash }));
          } finally {
            await store.close();
          }
        },
      });
    },
  },
);
