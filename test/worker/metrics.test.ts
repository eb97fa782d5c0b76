import { describe, expect, it } from 'vitest';
import { MemoryExecutionStore } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/** The sum of the sample lines matching `line` in the exposition text, or undefined when none. */
function sample(text: string, line: RegExp): number | undefined {
  const values = text
    .split('\n')
    .filter((l) => line.test(l))
    .map((l) => Number(l.split(' ').at(-1)));
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0);
}

/** A memory store, flow store and local queue, and a client on them. */
function memoryParts() {
  const store = new MemoryExecutionStore();
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
  return { store, flows, queue, client: new PlaitaClient({ store, flows, queue }) };
}

describe('worker metrics: every registered metric is set', () => {
  it('a scrape during and after a run reports messages, executions, nodes, checkpoints, queue depth and lag', async () => {
    const { store, flows, queue, client } = memoryParts();
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: '$INPUT.n', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.a' },
      ],
    };
    // Queued before the worker starts: the scrape sees them waiting, with an age.
    const ids = await Promise.all([1, 2, 3].map((n) => client.start(flow, { n })));
    await queue.enqueue({
      v: 1,
      kind: 'run',
      executionId: 'no-such-execution',
      tenantId: 'default',
    });
    const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const before = await worker.metrics!.registry.metrics();
    expect(sample(before, /^plaita_queue_depth\{state="ready"\}/)).toBe(4);
    expect(sample(before, /^plaita_queue_lag_seconds /)).toBeGreaterThan(0);

    worker.start();
    try {
      for (const id of ids)
        expect((await client.waitFor(id, { timeoutMs: 10_000 })).status).toBe('completed');
      await expect.poll(async () => (await queue.stats()).deadLetters, { timeout: 5000 }).toBe(1);
      const text = await worker.metrics!.registry.metrics();
      expect(sample(text, /^plaita_messages_total\{outcome="consumed",kind="run"\}/)).toBe(4);
      expect(sample(text, /^plaita_messages_total\{outcome="ack",kind="run"\}/)).toBe(3);
      expect(sample(text, /^plaita_messages_total\{outcome="dead_letter",kind="run"\}/)).toBe(1);
      expect(sample(text, /^plaita_dead_letters_total\{reason="unknown_execution"\}/)).toBe(1);
      expect(sample(text, /^plaita_executions_total\{status="completed"\}/)).toBe(3);
      expect(sample(text, /^plaita_node_duration_seconds_count/)).toBeGreaterThanOrEqual(6);
      // One checkpoint per execution, at the end: `a` is replayable (an assignment), so its
      // result rides along with the next save (docs/durable-contract.md §5 step 5).
      expect(sample(text, /^plaita_checkpoint_duration_seconds_count /)).toBe(3);
      expect(sample(text, /^plaita_checkpoint_bytes_count /)).toBe(3);
      expect(sample(text, /^plaita_checkpoint_bytes_sum /)).toBeGreaterThan(3 * 100);
      expect(sample(text, /^plaita_messages_in_flight /)).toBe(0);
      expect(sample(text, /^plaita_queue_depth\{state="ready"\}/)).toBe(0);
      expect(sample(text, /^plaita_queue_depth\{state="dead_letter"\}/)).toBe(1);
      expect(text).toContain('plaita_lease_conflicts_total 0');
      // Help texts name the labels the counters really use.
      expect(text).toContain('consumed, ack, leave, requeue, abandon, dead_letter');
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});

describe('node metrics of a failing node', () => {
  it('count under the type of the node that failed, not "none"', async () => {
    const { store, flows, queue, client } = memoryParts();
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        // Dividing a string: the expression fails at run time.
        { type: 'assignment', id: 'a', output: '$F.divide($INPUT.n, 0)', next: 'e' },
        { type: 'end', id: 'e' },
      ],
    };
    const id = await client.start(flow, { n: 'x' });
    const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20 });
    worker.start();
    try {
      expect((await client.waitFor(id, { timeoutMs: 10_000 })).status).toBe('error');
      const text = await worker.metrics!.registry.metrics();
      expect(sample(text, /^plaita_node_duration_seconds_count\{type="assignment"\}/)).toBe(1);
      expect(sample(text, /^plaita_node_duration_seconds_count\{type="none"\}/)).toBeUndefined();
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
