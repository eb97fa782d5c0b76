import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../src/backends/sqlite/sqlite-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { overriding } from '../support/overriding.js';

/**
 * A save can be applied by the store while its caller sees a failure (a timeout after the
 * server wrote it). When that save ended the execution and the delivery budget is spent, the
 * worker must not write `delivery_exhausted` from the state it held before: it reads what is
 * stored, finds it terminal, and acknowledges. A real SQLite file and queue.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const flow = {
  flow_id: 'unknown_outcome',
  nodes: [
    { type: 'start', id: 's', next: 'e' },
    { type: 'end', id: 'e', output: { answer: 42 } },
  ],
};

describe('a save whose outcome is unknown', () => {
  it('leaves a completed record completed when the budget is spent', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plaita-unknown-save-')), 'plaita.db');
    const store = new SqliteExecutionStore({ path });
    const flows = new SqliteFlowStore({ path });
    const queue = new LocalQueue({ path });
    closers.push(
      () => store.close(),
      () => flows.close(),
      () => queue.close(),
    );
    // The completed checkpoint reaches the file, then its caller is told the store timed out.
    const applyThenFail = overriding(store, 'save', (real) => async (state, options) => {
      await real(state, options);
      if (state.status === 'completed')
        throw new StoreUnavailableError('timed out after the write');
    });
    const client = new PlaitaClient({ store, flows, queue });
    const id = await client.start(flow, {});
    const worker = new FlowWorker({
      store: applyThenFail,
      flows,
      queue,
      maxDeliveries: 1,
      pollBlockMs: 20,
      metrics: null,
    });
    expect(await worker.tick()).toBe(1);

    const stored = await store.load(id);
    expect(stored?.status).toBe('completed');
    expect(stored?.result).toEqual({ answer: 42 });
    expect(stored?.error).toBeNull();
    expect((await queue.listDeadLetters()).items).toEqual([]);
    // Acknowledged: nothing is left to deliver again.
    expect(await worker.tick()).toBe(0);
  });
});
