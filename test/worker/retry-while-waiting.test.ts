import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * An execution can end in `error` while it waits: an event too large to store with it
 * (state_too_large), or one no worker could deliver within the budget. Its last good
 * checkpoint still has the node pending. An operator's retry must put it back to waiting —
 * timers re-armed, the inbox looked at — not try to run past a node that has no event yet.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const flow = {
  flow_id: 'wait_then_end',
  nodes: [
    { type: 'start', id: 's', next: 'w' },
    { type: 'event', id: 'w', event_type: 'paid', next: 'e' },
    { type: 'end', id: 'e', output: '$NODE.w.event_data.event_data.amount' },
  ],
};

describe('retry of an execution that failed while waiting', () => {
  it('waits again, and the next event completes it', async () => {
    const store = new MemoryExecutionStore({ maxStateBytes: 20_000 });
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' });
    closers.push(() => queue.close());
    const client = new PlaitaClient({ store, flows, queue });
    const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20, metrics: null });
    worker.start();
    closers.push(() => worker.stop());

    const id = await client.start(flow, {});
    await client.waitFor(id, { timeoutMs: 10_000, until: 'settled' });
    expect((await client.get(id))?.status).toBe('suspended');
    // An event whose data cannot be stored with the execution: it ends as state_too_large.
    await client.sendEvent(id, { type: 'paid', data: { amount: 1, blob: 'x'.repeat(30_000) } });
    const failed = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(failed.error).toMatchObject({ code: 'state_too_large' });

    await client.retry(id);
    await expect
      .poll(async () => (await client.get(id))?.status, { timeout: 10_000 })
      .toBe('suspended');
    const waiting = await client.get(id);
    expect(waiting?.waiting).toMatchObject({ nodeId: 'w', eventType: 'paid' });
    expect(waiting?.error).toBeNull();

    await client.sendEvent(id, { type: 'paid', data: { amount: 42 } });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toBe(42);
  });
});
