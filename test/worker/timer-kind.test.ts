import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { defineNode } from '../../src/index.js';
import { createDefaultRegistry } from '../../src/nodes/default-registry.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * A type that declares a delay (`NodeType.wait().delay`) but planned no wake-up this time
 * (no `trigger_timestamp`) while its node has a `timeout`: what fires is that timeout, and the
 * node resumes with `timeout`, as the engine armed it, not with the delay's event.
 */
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('the timer a worker arms for a waiting node', () => {
  it('is the timeout when a delay-declaring node planned no wake-up of its own', async () => {
    const registry = createDefaultRegistry();
    registry.register(
      defineNode({
        type: 'maybe.later',
        suspending: true,
        wait: () => ({ delay: true }),
        run: () => ({ status: 'pending', event_type: 'later' }),
        resume: (_ctx, type) => ({ status: 'completed', how: type }),
      }),
    );
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' });
    const worker = new FlowWorker({ store, flows, queue, registry, pollBlockMs: 20 });
    const client = new PlaitaClient({ store, flows, queue, registry });
    worker.start();
    closers.push(
      () => queue.close(),
      () => worker.stop(),
    );
    const id = await client.start(
      {
        flow_id: 'later',
        nodes: [
          { type: 'start', id: 's', next: 'w' },
          { type: 'maybe.later', id: 'w', timeout: 200, next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.w.how' },
        ],
      },
      {},
    );
    const done = await client.waitFor(id, { until: 'terminal', timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', result: 'timeout' });
  });
});
