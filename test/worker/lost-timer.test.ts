import { afterEach, describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import type { TaskQueue } from '../../src/queue/task-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { reapStale } from '../../src/worker/reaper.js';
import { timerId } from '../../src/worker/wait-timers.js';

/**
 * A suspension is saved first and its timer enqueued second. When that enqueue fails (the queue
 * blinked) or the worker dies between the two, the message that led to the suspension comes
 * back — and finds nothing left to do (its event already applied, its timer's visit over). Its
 * handling must still arm the timer, or the execution waits for ever.
 */
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** The real SQLite-backed LocalQueue whose `nth` timer enqueue fails (once). */
function queueFailingTimer(
  real: LocalQueue,
  nth: number,
): { queue: TaskQueue; failed: () => number } {
  let failures = 0;
  let timers = 0;
  const queue = overriding(real, 'enqueue', (enqueue) => (...args) => {
    const [message, options] = args;
    if (message.kind === 'timer' && ++timers === nth) {
      failures++;
      return Promise.reject(new StoreUnavailableError(`queue down (${options?.dedupId})`));
    }
    return enqueue(...args);
  });
  return { queue, failed: () => failures };
}

function runtime(failingTimer: number) {
  const real = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 500 });
  const { queue, failed } = queueFailingTimer(real, failingTimer);
  const store = new MemoryExecutionStore();
  const flows = new MemoryFlowStore();
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    concurrency: 2,
    pollBlockMs: 20,
    leaseTtlMs: 2000,
    metrics: null,
  });
  const client = new PlaitaClient({ store, flows, queue });
  worker.start();
  stop = async () => {
    await worker.stop();
    await real.close();
  };
  return { client, failed };
}

describe('a timer whose enqueue failed after its suspension was saved', () => {
  it('is armed by the redelivered event that suspended the execution', async () => {
    const { client, failed } = runtime(1);
    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'w' },
          { type: 'event', id: 'w', event_type: 'go', next: 'd' },
          { type: 'delay', id: 'd', delay_seconds: 0.1, next: 'e' },
          { type: 'end', id: 'e', output: 'done' },
        ],
      },
      {},
    );
    await client.waitFor(id, { timeoutMs: 5000 });
    await client.sendEvent(id, { type: 'go', data: {}, eventId: 'ev1' });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(failed()).toBe(1);
    expect(done.status).toBe('completed');
    expect(done.result).toBe('done');
  });

  it('is armed by the redelivered timer of the delay before it', async () => {
    const { client, failed } = runtime(2);
    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'd1' },
          { type: 'delay', id: 'd1', delay_seconds: 0.05, next: 'd2' },
          { type: 'delay', id: 'd2', delay_seconds: 0.05, next: 'e' },
          { type: 'end', id: 'e', output: 'done' },
        ],
      },
      {},
    );
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(failed()).toBe(1);
    expect(done.status).toBe('completed');
  });
});

describe('a timer lost after it was armed (a failover dropped it, it was purged)', () => {
  it('is armed again by the reaper once it is overdue, and the execution goes on', async () => {
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
    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'd' },
          { type: 'delay', id: 'd', delay_seconds: 0.2, next: 'e' },
          { type: 'end', id: 'e', output: 'done' },
        ],
      },
      {},
    );
    const waiting = await client.waitFor(id, { timeoutMs: 5000 });
    expect(waiting.status).toBe('suspended');
    // The armed timer is lost: nothing will ever wake the execution by itself.
    expect(await queue.cancelDelayed(timerId('default', id, 'd', 1, 'delay'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await client.get(id))!.status).toBe('suspended');
    expect(await reapStale(store, queue, { idleMs: 60_000 })).toEqual([]); // not overdue enough yet
    expect(await reapStale(store, queue, { idleMs: 200 })).toEqual([id]);
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done).toMatchObject({ status: 'completed', result: 'done' });
  });
});
