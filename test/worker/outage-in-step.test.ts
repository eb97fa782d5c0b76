import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { overriding } from '../support/overriding.js';

/**
 * A child flow's definition read from the worker's own flow store during a step: when that
 * store is down, the outage is transient (redelivered, the step run again from its checkpoint),
 * never the flow's failure written for good — nor a result an error handler makes of it.
 */
const child = {
  flow_id: 'child',
  version: '1',
  nodes: [
    { type: 'start', id: 's', next: 'e' },
    { type: 'end', id: 'e', output: 'from the child' },
  ],
};

const parent = (errorHandler?: Record<string, unknown>) => ({
  flow_id: 'parent',
  version: '1',
  nodes: [
    { type: 'start', id: 's', next: 'r' },
    {
      type: 'reference',
      id: 'r',
      flow_id: 'child',
      flow_version: '1',
      next: 'e',
      ...(errorHandler ? { errorHandler } : {}),
    },
    { type: 'end', id: 'e', output: '$NODE.r' },
  ],
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function run(flow: Record<string, unknown>) {
  const store = new MemoryExecutionStore();
  const real = new MemoryFlowStore();
  let outages = 0;
  // The real flow store, down for the first two reads of the child's definition.
  const flows = overriding(
    real,
    'getByVersion',
    (getByVersion) => (flowId, version, scope) =>
      flowId === 'child' && outages++ < 2
        ? Promise.reject(new StoreUnavailableError('flow store down for this test'))
        : getByVersion(flowId, version, scope),
  );
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 300 });
  const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20, leaseTtlMs: 1000 });
  const client = new PlaitaClient({ store, flows: real, queue });
  worker.start();
  closers.push(
    () => queue.close(),
    () => worker.stop(),
  );
  await client.prepare(child);
  const id = await client.start(flow, {});
  const done = await client.waitFor(id, { until: 'terminal', timeoutMs: 15_000 });
  return { done, outages };
}

describe('an outage of the worker’s own flow store inside a step', () => {
  it('is redelivered and the step runs again: the execution completes', async () => {
    const { done, outages } = await run(parent());
    expect(outages).toBeGreaterThanOrEqual(3);
    expect(done).toMatchObject({ status: 'completed', result: 'from the child' });
  });

  it('is not turned into a node result by an error handler that continues', async () => {
    const { done } = await run(parent({ strategy: 'continue' }));
    expect(done).toMatchObject({ status: 'completed', result: 'from the child' });
  });
});
