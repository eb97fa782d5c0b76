/** What only the SQLite store has: a file shared by connections and processes. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../../src/errors/store-errors.js';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { rejectionOf } from '../../contracts/store-harness.js';
import { lockInAnotherProcess } from './sqlite-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-'));
let fileNumber = 0;
const freshPath = (): string => join(dir, `store-${++fileNumber}.db`);
let stores: SqliteExecutionStore[] = [];
const open = (path: string, connectTimeoutMs?: number): SqliteExecutionStore => {
  const store = new SqliteExecutionStore(
    connectTimeoutMs === undefined ? { path } : { path, connectTimeoutMs },
  );
  stores.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()));
  stores = [];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteExecutionStore on a file', () => {
  it('opens the file in WAL mode at the latest schema version', async () => {
    const path = freshPath();
    await open(path).list();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    db.close();
  });

  it("two store objects on the same file see each other's writes", async () => {
    const path = freshPath();
    const [a, b] = [open(path), open(path)];
    const state = newExecutionState({
      executionId: 'shared',
      context: { $NODE: { n: new Set([1]) } },
    });
    await a.save(state);
    expect(await b.load('shared')).toEqual(state);
    const lease = await b.acquireLease('shared', { owner: 'w1', ttlMs: 60_000 });
    expect(await a.getLease('shared')).toEqual(lease);
    expect(await a.acquireLease('shared', { owner: 'w2', ttlMs: 60_000 })).toBeNull();
    await a.save({ ...state, version: 1 }, { fence: { generation: lease!.generation } });
    expect((await b.list()).items.map((i) => i.version)).toEqual([1]);
  });

  it('a writer in another process holding the lock makes save reject with StoreUnavailableError (SQLITE_BUSY) after the busy timeout; then it works', async () => {
    const path = freshPath();
    const store = open(path, 300);
    await store.save(newExecutionState({ executionId: 'busy', version: 0 }));
    const { exited } = await lockInAnotherProcess(path, 1500);
    const started = Date.now();
    const error = await rejectionOf(
      store.save(newExecutionState({ executionId: 'busy', version: 1 })),
    );
    expect(Date.now() - started).toBeLessThan(1500);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.retryable).toBe(true);
    expect((error.cause as { code: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(await store.load('busy')).toMatchObject({ version: 0 }); // WAL: readers are not blocked
    await exited;
    await store.save(newExecutionState({ executionId: 'busy', version: 2 }));
    expect(await store.load('busy')).toMatchObject({ version: 2 });
  });

  it('a batch of saves meeting the lock fails once, after one busy timeout, not one per save', async () => {
    const path = freshPath();
    const store = open(path, 200);
    await store.save(newExecutionState({ executionId: 'batch-0', version: 0 }));
    const { exited } = await lockInAnotherProcess(path, 3000);
    const started = Date.now();
    // 20 saves in one turn: one group-commit batch. Tried again save by save, the process
    // would be frozen 21 busy timeouts (4.2 s here), renewing no lease.
    const errors = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        rejectionOf(store.save(newExecutionState({ executionId: `batch-${i + 1}`, version: 0 }))),
      ),
    );
    const elapsedMs = Date.now() - started;
    for (const error of errors) expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(elapsedMs).toBeLessThan(2000);
    await exited;
  }, 20_000);

  it('a file that is not a database rejects with StoreConfigurationError naming it, not a transient error', async () => {
    const path = freshPath();
    writeFileSync(path, 'this is not an SQLite database, just some bytes '.repeat(100));
    const error = await rejectionOf(open(path).load('x'));
    expect(error).toBeInstanceOf(StoreConfigurationError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(path);
  });

  it('a path that cannot be opened is a permanent error, not StoreUnavailableError', async () => {
    const error = await rejectionOf(open(join(dir, 'missing', 'dir', 'x.db')).load('x'));
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect(error.retryable).not.toBe(true);
  });

  it('a closed store rejects instead of reopening', async () => {
    const store = open(freshPath());
    await store.close();
    await store.close();
    await expect(store.load('x')).rejects.toThrow(/closed/);
  });
});
