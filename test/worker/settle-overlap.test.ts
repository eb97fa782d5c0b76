import { describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

const SLOW_MS = 300;
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A handling holds its slot until its outcome is durable, not until its message is settled:
 * the ack and the lease release overlap the next receive. A message of the same execution
 * that arrives meanwhile waits for that release instead of finding the lease held.
 * Real memory store and local queue; only their ack and release are made slow.
 */
function slowSettling(options: { ackFails?: boolean } = {}) {
  const store = new MemoryExecutionStore();
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 5000 });
  /** What happened, in order: `save <execution>` and `acked <execution>`. */
  const events: string[] = [];
  const release = store.releaseLease.bind(store);
  store.releaseLease = async (...args) => {
    await later(SLOW_MS);
    const released = await release(...args);
    events.push(`released ${args[0]}`);
    return released;
  };
  const save = store.save.bind(store);
  store.save = (state, options) => {
    events.push(`save ${state.executionId}`);
    return save(state, options);
  };
  const ack = queue.ack.bind(queue);
  queue.ack = async (delivery) => {
    if (options.ackFails) throw new Error('the queue is down');
    await later(SLOW_MS);
    await ack(delivery);
    events.push(`acked ${delivery.parsed.ok ? delivery.parsed.message.executionId : '?'}`);
  };
  const worker = new FlowWorker({ store, flows, queue, concurrency: 1, pollBlockMs: 20 });
  const client = new PlaitaClient({ store, flows, queue });
  return { store, queue, worker, client, events };
}

const conflicts = async (worker: FlowWorker): Promise<number> => {
  const line = (await worker.metrics!.registry.metrics())
    .split('\n')
    .find((l) => l.startsWith('plaita_lease_conflicts_total '));
  return Number(line?.split(' ')[1] ?? 0);
};

describe('settling a message overlaps the next one', () => {
  it('at concurrency 1, the next execution runs while the last one is acknowledged', async () => {
    const { worker, client, queue, events } = slowSettling();
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: '$INPUT.n' },
      ],
    };
    const ids = await Promise.all([1, 2, 3].map((n) => client.start(flow, { n })));
    worker.start();
    try {
      // Every message is still acknowledged, each after its outcome was saved.
      await expect.poll(() => events.filter((e) => e.startsWith('acked')).length).toBe(3);
      for (const id of ids) expect((await client.get(id))!.status).toBe('completed');
      expect((await queue.stats()).inFlight).toBe(0);
    } finally {
      await worker.stop();
      await queue.close();
    }
    const worked = events.slice(ids.length); // after the client's own queued saves
    // Each execution's saves come before its ack, and the next execution's saves came before
    // that ack ended: its slot was free once its outcome was stored.
    const order = (event: string) => worked.indexOf(event);
    const runOrder = [
      ...new Set(worked.filter((e) => e.startsWith('save')).map((e) => e.slice(5))),
    ];
    expect(runOrder).toHaveLength(3);
    for (let k = 0; k < 2; k++) {
      const [current, next] = [runOrder[k]!, runOrder[k + 1]!];
      expect(worked.lastIndexOf(`save ${current}`)).toBeLessThan(order(`acked ${current}`));
      expect(worked.lastIndexOf(`save ${next}`)).toBeLessThan(order(`acked ${current}`));
    }
  });

  it('the next message of the same execution waits for the release, not a lease conflict', async () => {
    const { worker, client, queue } = slowSettling();
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'w' },
        { type: 'event', id: 'w', event_type: 'go', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.w.event_data.event_data' },
      ],
    };
    worker.start();
    try {
      const id = await client.start(flow, {});
      // The event is sent the moment the execution is suspended: its run's lease is still
      // being given back, slowly.
      await client.waitFor(id, { timeoutMs: 5000, pollMs: 5 });
      await client.sendEvent(id, { type: 'go', data: { ok: true } });
      const done = await client.waitFor(id, { until: 'terminal', timeoutMs: 5000, pollMs: 10 });
      expect(done.status).toBe('completed');
      expect(done.result).toEqual({ ok: true });
      expect(await conflicts(worker)).toBe(0);
    } finally {
      await worker.stop();
      await queue.close();
    }
  });

  it('when settling the message fails, stopping still waits for the lease release', async () => {
    const { worker, client, queue, events } = slowSettling({ ackFails: true });
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: 1 },
      ],
    };
    worker.start();
    const id = await client.start(flow, {});
    try {
      expect((await client.waitFor(id, { timeoutMs: 5000, pollMs: 5 })).status).toBe('completed');
    } finally {
      await worker.stop(); // the release takes 300 ms; the failed ack does not cut the wait
      expect(events).toContain(`released ${id}`);
      await queue.close();
    }
  });
});
