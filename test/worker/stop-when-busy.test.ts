import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
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

describe('what a drain cuts off', () => {
  it("is abandoned: its node's signal fires, nothing more of it is written, and another worker finishes it once the lease expires", async () => {
    const registry = createDefaultRegistry();
    let runs = 0;
    let firstSignal: AbortSignal | null = null;
    let began = (): void => undefined;
    const running = new Promise<void>((resolve) => (began = resolve));
    registry.register(
      defineNode({
        type: 'slow.once',
        run: async (ctx) => {
          if (++runs > 1) return 'second run';
          firstSignal = ctx.signal;
          began();
          // Honours its signal, as a node should; would run for a minute otherwise.
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 60_000);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve();
            });
          });
          return 'first run';
        },
      }),
    );
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 600 });
    closers.push(() => queue.close());
    const client = new PlaitaClient({ store, flows, queue, registry });
    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'w' },
          { type: 'slow.once', id: 'w', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.w' },
        ],
      },
      {},
    );
    const settings = { store, flows, queue, registry, pollBlockMs: 20, metrics: null };
    // Its only delivery: giving it up must not spend it as a failure (delivery_exhausted).
    const first = new FlowWorker({
      ...settings,
      drainTimeoutMs: 100,
      leaseTtlMs: 600,
      maxDeliveries: 1,
    });
    first.start();
    await running;
    const before = await store.load(id);
    await first.stop();
    expect(firstSignal!.aborted).toBe(true);
    expect(first.abandonedOnStop).toBe(1);
    // The abandoned handling wrote nothing: not its node's result, not an error.
    const after = await store.load(id);
    expect(after?.version).toBe(before?.version);
    expect(after?.status).toBe('running');

    expect((await queue.stats()).deadLetters).toBe(0);
    const second = new FlowWorker({ ...settings, leaseTtlMs: 600 });
    closers.push(() => second.stop());
    second.start();
    const done = await client.waitFor(id, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', result: 'second run' });
    expect(second.abandonedOnStop).toBe(0);
  });
});

describe('a handling still claiming at the drain timeout', () => {
  it('goes no further once its claim returns: nothing written, the lease given back, the message left for later', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 600 });
    closers.push(() => queue.close());
    const client = new PlaitaClient({ store, flows, queue });
    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'e' },
          { type: 'end', id: 'e', output: 'done' },
        ],
      },
      {},
    );
    // The store answers this claim only once the worker has been told to stop.
    let claiming = (): void => undefined;
    const claimAsked = new Promise<void>((resolve) => (claiming = resolve));
    let answerClaim = (): void => undefined;
    const claimAnswered = new Promise<void>((resolve) => (answerClaim = resolve));
    const acquire = store.acquireLease.bind(store);
    store.acquireLease = async (executionId, request) => {
      claiming();
      await claimAnswered;
      store.acquireLease = acquire;
      return acquire(executionId, request);
    };
    const before = await store.load(id);
    const settings = { store, flows, queue, pollBlockMs: 20, metrics: null, leaseTtlMs: 600 };
    const first = new FlowWorker({ ...settings, drainTimeoutMs: 50 });
    first.start();
    await claimAsked;
    const stopped = first.stop();
    await new Promise((resolve) => setTimeout(resolve, 150)); // past the drain timeout
    answerClaim();
    await stopped;
    await new Promise((resolve) => setTimeout(resolve, 100)); // its release lands
    const after = await store.load(id);
    expect(after?.version).toBe(before?.version);
    expect(after?.status).toBe('queued');
    expect(await store.getLease(id)).toBeNull();
    expect((await queue.stats()).deadLetters).toBe(0);

    // Started again, the same worker takes the message back once it is due: what it gave up
    // at the drain timeout does not hold back what it handles after.
    closers.push(() => first.stop());
    first.start();
    expect(await client.waitFor(id, { timeoutMs: 10_000 })).toMatchObject({
      status: 'completed',
      result: 'done',
    });
  });
});
