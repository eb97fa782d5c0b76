import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * A rolling deploy: the flow was started (and validated) where its plugin is loaded, and a
 * worker without the plugin takes the message. That worker's lack is not the execution's
 * failure: the message goes back for a worker that has it, and only when none has within the
 * delivery budget does the execution end, observably (delivery_exhausted, a dead letter).
 */
const withPlugin = () => {
  const registry = createDefaultRegistry();
  registry.register(defineNode({ type: 'crm.lookup', run: () => ({ customer: 'Ada' }) }));
  return registry;
};

const flow = {
  nodes: [
    { type: 'start', id: 's', next: 'l' },
    { type: 'crm.lookup', id: 'l', next: 'e' },
    { type: 'end', id: 'e', output: '$NODE.l.customer' },
  ],
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function shared() {
  const store = new MemoryExecutionStore();
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 200 });
  closers.push(() => queue.close());
  const client = new PlaitaClient({ store, flows, queue, registry: withPlugin() });
  const worker = (registry: ReturnType<typeof withPlugin> | undefined, maxDeliveries = 5) => {
    const started = new FlowWorker({
      store,
      flows,
      queue,
      pollBlockMs: 20,
      leaseTtlMs: 1000,
      maxDeliveries,
      metrics: null,
      ...(registry ? { registry } : {}),
    });
    started.start();
    closers.push(() => started.stop());
    return started;
  };
  return { store, queue, client, worker };
}

describe('a worker that lacks a plugin the flow uses', () => {
  it('leaves the message for a worker that has it', async () => {
    const { client, worker } = shared();
    const id = await client.start(flow, {});
    const without = worker(undefined);
    await new Promise((resolve) => setTimeout(resolve, 500)); // a few deliveries
    expect((await client.get(id))?.status).toBe('queued');
    await without.stop();
    worker(withPlugin());
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toBe('Ada');
  });

  it('ends the execution observably when no worker could load it within the budget', async () => {
    const { client, queue, worker } = shared();
    const id = await client.start(flow, {});
    worker(undefined, 2);
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('error');
    expect(done.error).toMatchObject({ code: 'delivery_exhausted' });
    const letters = await queue.listDeadLetters();
    expect(letters.items.map((letter) => letter.reason)).toContain('delivery_exhausted');
  });

  it('still cancels an execution it cannot load', async () => {
    const { client, worker } = shared();
    const id = await client.start(flow, {});
    worker(undefined);
    await client.cancel(id, { reason: 'operator' });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('cancelled');
  });
});
