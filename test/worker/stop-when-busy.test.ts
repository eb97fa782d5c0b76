import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/queue/local/local-queue.js';
import { MemoryExecutionStore } from '../../src/store/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/store/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * stop() on a worker whose every slot is taken by a long node: the drain timeout counts from
 * the call, not from whenever a slot happens to free up (a deploy's SIGTERM must end in time).
 */
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('stopping a busy worker', () => {
  it('returns after the drain timeout while every slot is still working', async () => {
    let finish: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => (finish = resolve));
    closers.push(() => finish());
    const registry = createDefaultRegistry();
    let began = (): void => undefined;
    const running = new Promise<void>((resolve) => (began = resolve));
    registry.register(
      defineNode({
        type: 'slow.step',
        run: async () => {
          began();
          await stalled;
          return 'done';
        },
      }),
    );
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' });
    closers.push(() => queue.close());
    const client = new PlaitaClient({ store, flows, queue, registry });
    await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'w' },
          { type: 'slow.step', id: 'w', next: 'e' },
          { type: 'end', id: 'e' },
        ],
      },
      {},
    );
    const worker = new FlowWorker({
      store,
      flows,
      queue,
      registry,
      concurrency: 1,
      drainTimeoutMs: 100,
      pollBlockMs: 20,
      metrics: null,
    });
    worker.start();
    await running;
    const asked = Date.now();
    await worker.stop();
    // The node never finishes here: only the drain timeout can have ended stop().
    expect(Date.now() - asked).toBeLessThan(2_000);
  });
});
