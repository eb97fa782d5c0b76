/**
 * Migration 0007 (node results keyed by their execution's row id): a file written by the layout
 * before it opens, migrates, and every execution loads as it was saved, lease and cancel mark
 * included; what is written after lands in the new layout.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreConfigurationError } from '../../../src/errors/store-errors.js';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';
import { newExecutionState, type ExecutionState } from '../../../src/state/execution-state.js';
import type { Lease } from '../../../src/store/execution-store.js';
import { rejectionOf } from '../../contracts/store-harness.js';
import { lockInAnotherProcess } from './sqlite-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const migrationsDir = new URL('../../../src/backends/sqlite/migrations/', import.meta.url);

/** A file at schema 6, built by the migration files themselves. */
function fileAtVersion6(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL'); // as every file plaita opened is
  const files = readdirSync(migrationsDir)
    .filter((name) => /^000[1-6]_.*\.sql$/.test(name))
    .sort();
  expect(files).toHaveLength(6);
  for (const name of files) db.exec(readFileSync(new URL(name, migrationsDir), 'utf8'));
  db.pragma('user_version = 6');
  return db;
}

const COLUMNS = `tenant_id, execution_id, flow_id, flow_version, flow_hash, status, version,
  created_at, updated_at, ended_at, expires_at, header, header_bytes, summary, state_bytes,
  next_seq, lease_owner, lease_generation, lease_expires_at, cancel_requested`;

/**
 * Writes `states` as schema 6 stored them: saved through today's store into a scratch file
 * (the same header and entry texts), then copied row by row into the schema 6 tables.
 */
async function writeAtVersion6(path: string, states: ExecutionState[]): Promise<Lease> {
  const scratch = join(dir, `scratch-${Date.now()}.db`);
  const store = new SqliteExecutionStore({ path: scratch });
  for (const state of states) await store.save(state);
  const lease = await store.acquireLease('leased', { owner: 'w1', ttlMs: 600_000 });
  expect(lease).not.toBeNull();
  await store.requestCancel('leased');
  await store.close();
  const db = fileAtVersion6(path);
  db.exec(`ATTACH DATABASE '${scratch}' AS today`);
  db.exec(`INSERT INTO executions (${COLUMNS}) SELECT ${COLUMNS} FROM today.executions`);
  db.exec(`INSERT INTO node_results (tenant_id, execution_id, node_id, seq, value, bytes)
    SELECT e.tenant_id, e.execution_id, n.node_id, n.seq, n.value, n.bytes
    FROM today.node_results n JOIN today.executions e ON e.row_id = n.execution_row`);
  // A result whose execution row is gone: never readable, dropped by the migration.
  db.exec(`INSERT INTO node_results VALUES ('default', 'gone', 'n', 0, '1', 1)`);
  db.close();
  return lease!;
}

function withResults(executionId: string, results: Record<string, unknown>): ExecutionState {
  return newExecutionState({
    executionId,
    context: { $INPUT: { order: executionId }, $NODE: results },
  });
}

describe('SQLite migration 0007 (node results by row id)', () => {
  it('a file written by schema 6 migrates and every execution loads as it was saved', async () => {
    const path = join(dir, 'v6.db');
    const states = [
      withResults('first', { a: { when: new Date('2026-01-02T03:04:05Z') }, b: [1, 2] }),
      withResults('leased', { a: new Map([['k', new Set([1n])]]) }),
      withResults('empty', {}),
    ];
    const lease = await writeAtVersion6(path, states);

    const store = new SqliteExecutionStore({ path });
    try {
      for (const state of states) expect(await store.load(state.executionId)).toEqual(state);
      expect(await store.getLease('leased')).toEqual(lease);
      expect(await store.isCancelRequested('leased')).toBe(true);
      expect((await store.list()).items.map((i) => i.executionId).sort()).toEqual([
        'empty',
        'first',
        'leased',
      ]);
      // Written after the migration: a changed result and a new one, in the order first recorded.
      const firstA = { when: new Date('2026-01-02T03:04:05Z') };
      const next = withResults('first', { a: firstA, b: 'changed', c: null });
      await store.save({ ...next, version: 1 });
      const loaded = await store.load('first');
      expect(loaded?.context.$NODE).toEqual({
        a: firstA,
        b: 'changed',
        c: null,
      });
      expect(Object.keys(loaded?.context.$NODE ?? {})).toEqual(['a', 'b', 'c']);
    } finally {
      await store.close();
    }

    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    const orphans = db
      .prepare(
        'SELECT count(*) AS n FROM node_results WHERE execution_row NOT IN (SELECT row_id FROM executions)',
      )
      .get() as { n: number };
    expect(orphans.n).toBe(0);
    db.close();
  });

  it('deleting an execution, or sweeping it, takes its results with the row', async () => {
    const path = join(dir, 'delete.db');
    const store = new SqliteExecutionStore({ path });
    const resultRows = (): number => {
      const db = new Database(path, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM node_results').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    try {
      await store.save(withResults('kept', { x: 1 }));
      const kept = resultRows();
      await store.save(withResults('deleted', { y: 2, z: 3 }));
      expect(await store.delete('deleted')).toBe(true);
      expect(resultRows()).toBe(kept);
      const shortLived = new SqliteExecutionStore({ path, terminalTtlMs: 1 });
      await shortLived.save({ ...withResults('swept', { w: 4 }), status: 'completed' });
      await shortLived.close();
      expect(resultRows()).toBeGreaterThan(kept);
      expect(await store.sweepExpired(Date.now() + 60_000)).toBe(1);
      expect(resultRows()).toBe(kept);
      // The deleted newest row's id is handed out again: its results are not found there.
      await store.save(withResults('reborn', {}));
      expect((await store.load('reborn'))?.context.$NODE).toEqual({});
      expect((await store.load('kept'))?.context.$NODE).toEqual({ x: 1 });
    } finally {
      await store.close();
    }
  });

  it('a process opening a file while another migrates it waits for that migration, past its own busy timeout', async () => {
    const path = join(dir, 'waits.db');
    fileAtVersion6(path).close();
    // The other process holds the write lock as a long migration would, for 1.5 s.
    const { exited } = await lockInAnotherProcess(path, 1500);
    const store = new SqliteExecutionStore({ path, connectTimeoutMs: 200 });
    try {
      expect((await store.list()).items).toEqual([]);
      const db = new Database(path, { readonly: true });
      expect(db.pragma('user_version', { simple: true })).toBe(7);
      db.close();
    } finally {
      await store.close();
      await exited;
    }
  });

  it('a store whose file a newer plaita migrates under it fails as misconfigured, not as a permanent error of the execution', async () => {
    const path = join(dir, 'newer.db');
    const store = new SqliteExecutionStore({ path });
    try {
      await store.save(withResults('running', { a: 1 }));
      // What a future migration may do: reshape a table this build's statements use.
      const newer = new Database(path);
      newer.exec('ALTER TABLE node_results RENAME COLUMN value TO text');
      newer.pragma('user_version = 8');
      newer.close();
      const refusal = await rejectionOf(store.load('running'));
      expect(refusal).toBeInstanceOf(StoreConfigurationError);
      expect(refusal).toMatchObject({ code: 'store_misconfigured', retryable: false });
      expect((refusal as Error).message).toMatch(
        /migrated to version 8 .*knows 7.*stop older processes/,
      );
    } finally {
      await store.close();
    }
  });
});
