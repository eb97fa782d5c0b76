import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryControlStore } from '../../src/backends/memory/memory-control-store.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { SqliteControlStore } from '../../src/backends/sqlite/sqlite-control-store.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { ReaperLoop } from '../../src/worker/reaper-loop.js';

/**
 * A process that died between saving an execution `queued` and enqueueing its `run` leaves it
 * waiting for ever unless someone reaps: every worker and server now does, one pass per
 * interval across them all.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('the reaper loop', () => {
  it('continues an execution whose run was never enqueued; one process reaps per interval', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const control = new MemoryControlStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    closers.push(() => queue.close());
    // The start's enqueue is lost, as if its process died right after the save.
    const lost = new PlaitaClient({
      store,
      flows,
      queue: overriding(
        queue,
        'enqueue',
        () => () => Promise.reject(new Error('the process died here')),
      ),
    });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: 'continued' },
      ],
    };
    await expect(lost.start(flow, {}, { executionId: 'orphan' })).rejects.toThrow('died');
    const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20, metrics: null });
    worker.start();
    closers.push(() => worker.stop());
    const client = new PlaitaClient({ store, flows, queue });
    expect((await client.get('orphan'))?.status).toBe('queued');

    const deps = { store, queue, control };
    const first = new ReaperLoop(deps, { log: silentLogger, idleMs: 0 });
    const second = new ReaperLoop(deps, { log: silentLogger, idleMs: 0 });
    expect(await first.pass()).toEqual(['orphan']);
    expect(await second.pass()).toBeNull(); // the interval's turn is taken
    const done = await client.waitFor('orphan', { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toBe('continued');
  });

  it('leaves alone what made progress within idleMs', async () => {
    const store = new MemoryExecutionStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    closers.push(() => queue.close());
    const client = new PlaitaClient({
      store,
      flows: new MemoryFlowStore(),
      queue: overriding(
        queue,
        'enqueue',
        () => () => Promise.reject(new Error('the process died here')),
      ),
    });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e' },
      ],
    };
    await expect(client.start(flow, {}, { executionId: 'fresh' })).rejects.toThrow('died');
    const loop = new ReaperLoop(
      { store, queue, control: new MemoryControlStore() },
      { log: silentLogger },
    );
    expect(await loop.pass()).toEqual([]);
    expect((await queue.stats()).ready).toBe(0);
  });
});

describe('the reaper loop and tenants', () => {
  it("reaps every tenant's stale executions, not only the default tenant's", async () => {
    const store = new MemoryExecutionStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    closers.push(() => queue.close());
    for (const tenantId of ['default', 'acme', 'globex'])
      await store.save(
        newExecutionState({ executionId: `stuck-${tenantId}`, tenantId, status: 'running' }),
      );
    const deps = { store, queue, control: new MemoryControlStore() };
    const reaped = await new ReaperLoop(deps, { log: silentLogger, idleMs: 0 }).pass();
    expect([...(reaped ?? [])].sort()).toEqual(['stuck-acme', 'stuck-default', 'stuck-globex']);
    const messages = await queue.receive('probe', { max: 10, blockMs: 0 });
    expect(messages.map((m) => (m.parsed.ok ? m.parsed.message.tenantId : null)).sort()).toEqual([
      'acme',
      'default',
      'globex',
    ]);
  });
});

describe('the reaper loop sweeps', () => {
  it('expired terminal executions out of a SQLite file (reads hid them; the disk kept them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaita-sweep-'));
    const path = join(dir, 'store.db');
    const store = new SqliteExecutionStore({ path, terminalTtlMs: 1 });
    const control = new SqliteControlStore({ path });
    const queue = new LocalQueue({ path: ':memory:' });
    closers.push(async () => {
      await Promise.all([store.close(), control.close(), queue.close()]);
      rmSync(dir, { recursive: true, force: true });
    });
    await store.save(newExecutionState({ executionId: 'done', status: 'completed' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.load('done')).toBeNull(); // expired: hidden from reads
    const rows = () => {
      const db = new Database(path, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM executions').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect(rows()).toBe(1);
    await new ReaperLoop({ store, queue, control }, { log: silentLogger }).pass();
    expect(rows()).toBe(0);
  });
});
