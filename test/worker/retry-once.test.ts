import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('two retries asked for one failure', () => {
  it('re-run it once: the second finds the failure already retried (retriesSeen)', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' });
    closers.push(() => queue.close());
    const client = new PlaitaClient({ store, flows, queue });
    const settings = { store, flows, queue, pollBlockMs: 20, metrics: null };
    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'calc' },
          { type: 'assignment', id: 'calc', output: '$F.div(1, $INPUT.d)', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.calc' },
        ],
      },
      { d: 0 },
    );
    const first = new FlowWorker(settings);
    first.start();
    expect(await client.waitFor(id, { timeoutMs: 10_000 })).toMatchObject({ status: 'error' });
    await first.stop();
    // Both asked while it is in error, before any worker took either: same retriesSeen.
    await client.retry(id);
    await client.retry(id);
    const second = new FlowWorker(settings);
    closers.push(() => second.stop());
    second.start();
    // Every message handled, a requeued one (the other held the lease) included.
    await expect
      .poll(
        async () => {
          const { ready, inFlight, delayed } = await queue.stats();
          return ready + inFlight + delayed;
        },
        { timeout: 10_000 },
      )
      .toBe(0);
    expect(await store.load(id)).toMatchObject({ status: 'error', manualRetries: 1 });
  });
});
