import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { timerId } from '../../src/worker/wait-timers.js';

/**
 * A wait keeps its timer in the record (`waiting.visit`, `timer`, `timerData`), so the worker
 * arms, cancels and fires it without reading the flow or the checkpoint. Records saved before
 * those fields existed still wait: their timer is read from the flow, as it was armed then.
 */
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const flow = {
  nodes: [
    { type: 'start', id: 's', next: 'd' },
    { type: 'delay', id: 'd', delay_seconds: 0.4, next: 'e' },
    { type: 'end', id: 'e', output: '$NODE.d' },
  ],
};

/** The delay node's result once its timer fired as a delay (its own `delay_ms` included). */
const delayResumed = (id: string) => ({
  status: 'completed',
  subscription_id: `sub:${id}:d:1`,
  event_data: {
    event_id: `${id}:d:1:delay`,
    event_data: { trigger_type: 'delay_completed', delay_ms: 400, success: true },
  },
});

function runtime() {
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 500 });
  const store = new MemoryExecutionStore();
  const flows = new MemoryFlowStore();
  const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20, metrics: null });
  const client = new PlaitaClient({ store, flows, queue });
  worker.start();
  stop = async () => {
    await worker.stop();
    await queue.close();
  };
  return { queue, store, client };
}

describe('a delay wait', () => {
  it('is recorded with its visit and timer, and fires as the delay event', async () => {
    const { client } = runtime();
    const id = await client.start(flow, {});
    const waiting = await client.waitFor(id, { timeoutMs: 5000 });
    expect(waiting.waiting).toMatchObject({ nodeId: 'd', visit: 1, timer: 'delay' });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject(delayResumed(id));
  });

  it('saved before the record kept its timer is armed from the flow when its message comes back', async () => {
    const { queue, store, client } = runtime();
    const id = await client.start(flow, {});
    const waiting = await client.waitFor(id, { timeoutMs: 5000 });
    // The record as an older version wrote it, and its timer lost: only `run` can bring it back.
    const { visit: _v, timer: _t, timerData: _d, ...older } = waiting.waiting!;
    await store.save({ ...waiting, waiting: older, version: waiting.version + 1 });
    expect(await queue.cancelDelayed(timerId('default', id, 'd', 1, 'delay'))).toBe(true);
    await queue.enqueue({ v: 1, kind: 'run', executionId: id, tenantId: 'default' });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    // A delay, not a timeout: the node resumed with its event and the flow went on.
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject(delayResumed(id));
  });
});
