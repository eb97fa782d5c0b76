import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import type { ExecutionStore } from '../../src/store/execution-store.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { overriding } from '../support/overriding.js';

/**
 * A start whose queued record was written but whose save still failed as an outage (its reply
 * lost; on a Redis Cluster, the listing-index update after the record) must not leave that
 * record without its `run`: it would wait for the reaper, or, unlisted, for ever.
 */
const echo = {
  flow_id: 'echo',
  nodes: [
    { type: 'start', id: 'start', next: 'end' },
    { type: 'end', id: 'end', output: '$INPUT.name' },
  ],
};

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function setUp(save: (real: ExecutionStore['save']) => ExecutionStore['save']) {
  const real = new MemoryExecutionStore();
  const store = overriding<ExecutionStore, 'save'>(real, 'save', save);
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' });
  const worker = new FlowWorker({ store: real, flows, queue, pollBlockMs: 20, metrics: null });
  worker.start();
  closers.push(
    () => queue.close(),
    () => worker.stop(),
  );
  return { client: new PlaitaClient({ store, flows, queue }), real };
}

describe('a start whose save failed as an outage', () => {
  it('runs the execution when its record was written after all', async () => {
    let failed = 0;
    const { client } = setUp((save) => async (state, options) => {
      await save(state, options);
      if (state.status === 'queued' && failed++ === 0)
        throw new StoreUnavailableError('the reply was lost after the write');
    });
    const id = await client.start(echo, { name: 'Ada' });
    expect(failed).toBe(1);
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done).toMatchObject({ status: 'completed', result: 'Ada' });
  });

  it('still fails, storing nothing, when the record was not written', async () => {
    const { client, real } = setUp(
      () => () => Promise.reject(new StoreUnavailableError('connection refused')),
    );
    await expect(client.start(echo, { name: 'Ada' })).rejects.toMatchObject({
      code: 'store_unavailable',
    });
    expect((await real.list({})).items).toEqual([]);
  });
});
