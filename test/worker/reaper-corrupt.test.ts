import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { reapStale } from '../../src/worker/reaper.js';

/**
 * A record whose state cannot be read is dead-lettered by the worker that meets it and stays
 * `running` for an operator: the reaper must not enqueue it again on every pass (each would be
 * one more dead letter, and the capped list would lose real ones). A real SQLite file.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('reap', () => {
  it('skips a running execution whose stored state cannot be read, and reaps the others', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plaita-reap-')), 'store.db');
    const store = new SqliteExecutionStore({ path });
    const queue = new LocalQueue({ path: ':memory:' });
    closers.push(
      () => store.close(),
      () => queue.close(),
    );
    for (const executionId of ['sound', 'corrupt'])
      await store.save(newExecutionState({ executionId, status: 'running' }));
    const raw = new Database(path);
    raw
      .prepare("UPDATE executions SET header = 'not a state' WHERE execution_id = ?")
      .run('corrupt');
    raw.close();
    await expect(store.load('corrupt')).rejects.toMatchObject({ code: 'state_corrupt' });
    expect(await reapStale(store, queue, { idleMs: 0 })).toEqual(['sound']);
  });
});
