import { afterEach, describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { createDefaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Two starts with one dedup key, the second's "is it there?" read answered before the first
 * wrote anything, and held until the first execution ran to its end: the second must neither
 * reset the finished execution nor run its side effect again. (The store's create-only save is
 * what decides; its atomicity is in the store conformance suite.)
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe.each([
  ['memory', () => new MemoryExecutionStore()],
  [
    'sqlite file',
    () =>
      new SqliteExecutionStore({
        path: join(mkdtempSync(join(tmpdir(), 'plaita-dedup-')), 'store.db'),
      }),
  ],
] as const)('a start with a dedup key racing another (%s)', (_name, openStore) => {
  it('makes one execution that runs once', async () => {
    let charges = 0;
    const registry = createDefaultRegistry();
    registry.register(defineNode({ type: 'charge', run: () => ({ charged: ++charges }) }));
    const real = openStore();
    closers.push(() => real.close());
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let loads = 0;
    // The second start's existence check is slow (a far network): answered, then delivered late.
    const store = overriding(real, 'load', (load) => async (...args) => {
      const loaded = await load(...args);
      if (++loads === 2) await held;
      return loaded;
    });
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    closers.push(() => queue.close());
    const worker = new FlowWorker({
      store: real,
      flows,
      queue,
      registry,
      pollBlockMs: 20,
      leaseTtlMs: 2000,
      metrics: null,
    });
    worker.start();
    closers.push(() => worker.stop());
    const client = new PlaitaClient({ store, flows, queue, registry });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        { type: 'charge', id: 'c', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    };
    const first = client.start(flow, {}, { dedupKey: 'order-42' });
    const second = client.start(flow, {}, { dedupKey: 'order-42' });
    const id = await first;
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    release();
    expect(await second).toBe(id);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second run would have started
    const after = await real.load(id, { tenantId: 'default' });
    expect(after?.status).toBe('completed');
    expect(after?.version).toBe(done.version);
    expect(charges).toBe(1);
  });
});

describe('a start with a dedup key whose enqueue failed', () => {
  it('is enqueued again by the repeated start, and runs', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const real = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    closers.push(() => real.close());
    let failNext = true;
    const queue = overriding(real, 'enqueue', (enqueue) => (...args) => {
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('the queue blinked'));
      }
      return enqueue(...args);
    });
    const client = new PlaitaClient({ store, flows, queue });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: 'ran' },
      ],
    };
    await expect(client.start(flow, {}, { dedupKey: 'order-7' })).rejects.toThrow('blinked');
    const id = await client.start(flow, {}, { dedupKey: 'order-7' });
    const worker = new FlowWorker({ store, flows, queue: real, pollBlockMs: 20, metrics: null });
    worker.start();
    closers.push(() => worker.stop());
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toBe('ran');
  });
});

describe('a start with an id the caller chose', () => {
  it('repeated after the execution finished, returns it and neither resets nor re-runs it', async () => {
    let charges = 0;
    const registry = createDefaultRegistry();
    registry.register(defineNode({ type: 'charge', run: () => ({ charged: ++charges }) }));
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    closers.push(() => queue.close());
    const worker = new FlowWorker({
      store,
      flows,
      queue,
      registry,
      pollBlockMs: 20,
      metrics: null,
    });
    worker.start();
    closers.push(() => worker.stop());
    const client = new PlaitaClient({ store, flows, queue, registry });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        { type: 'charge', id: 'c', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    };
    const id = await client.start(flow, {}, { executionId: 'order-99' });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(await client.start(flow, { other: 1 }, { executionId: 'order-99' })).toBe(id);
    // Past the existence check too: the create-only save must refuse, not overwrite.
    const prepared = await client.prepare(flow);
    const returned = await client.startPrepared(prepared, {}, { executionId: 'order-99' });
    expect(returned.version).toBe(done.version);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second run would have started
    const after = await store.load(id, { tenantId: 'default' });
    expect(after?.status).toBe('completed');
    expect(after?.version).toBe(done.version);
    expect(charges).toBe(1);
  });
});
