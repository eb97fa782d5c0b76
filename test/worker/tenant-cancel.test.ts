import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * Execution ids are unique per tenant only: a cancel for tenant b's `x`, whose lease another
 * worker holds, must not reach tenant a's `x` running in this process.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('an in-process cancel', () => {
  it("reaches only its own tenant's execution", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const registry = createDefaultRegistry();
    registry.register(
      defineNode({
        type: 'slow',
        run: async () => {
          started();
          await released;
          return 'slow done';
        },
      }),
    );
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 5000 });
    closers.push(() => queue.close());
    const worker = new FlowWorker({
      store,
      flows,
      queue,
      registry,
      concurrency: 4,
      pollBlockMs: 20,
      metrics: null,
    });
    worker.start();
    closers.push(() => worker.stop());
    const alice = new PlaitaClient({ store, flows, queue, registry, tenantId: 'a' });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'w' },
        { type: 'slow', id: 'w', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.w' },
      ],
    };
    await alice.start(flow, {}, { executionId: 'x' });
    await running;
    // Tenant b's `x`, held by a worker elsewhere, and a cancel for it delivered here.
    await store.save(newExecutionState({ executionId: 'x', tenantId: 'b', status: 'running' }));
    expect(
      await store.acquireLease('x', { tenantId: 'b', owner: 'elsewhere', ttlMs: 30_000 }),
    ).not.toBeNull();
    await queue.enqueue({ v: 1, kind: 'cancel', executionId: 'x', tenantId: 'b' });
    await expect
      .poll(async () => await store.isCancelRequested('x', { tenantId: 'b' }), { timeout: 5000 })
      .toBe(true);
    release();
    const done = await alice.waitFor('x', { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toBe('slow done');
  });
});
