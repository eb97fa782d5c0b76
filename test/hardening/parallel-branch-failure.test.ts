import { describe, expect, it } from 'vitest';
import {
  defaultRegistry,
  defineNode,
  MemoryExecutionStore,
  parseFlow,
  runFlow,
  stepFlow,
} from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

// Issue 7 item 1: a join branch that fails while an earlier join branch is still pending
// (the original's multi-source lookup with one source down) must become that branch's
// sentinel slot, never an unhandled rejection that kills the process.

const registry = defaultRegistry.copy().register(
  defineNode({
    type: 'slow_source',
    run: async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { source: 'slow', hits: 3 };
    },
  }),
);

const lookup = {
  flow_id: 'multi_source_lookup',
  nodes: [
    { type: 'start', id: 'start', next: 'sources' },
    {
      type: 'parallel',
      id: 'sources',
      joinBranches: ['slow', 'down'],
      branches: [
        {
          name: 'slow',
          flow: {
            nodes: [
              { type: 'start', id: 's', next: 'q' },
              { type: 'slow_source', id: 'q', next: 'e' },
              { type: 'end', id: 'e', output: '$NODE.q' },
            ],
          },
        },
        {
          name: 'down',
          flow: {
            nodes: [
              { type: 'start', id: 's', next: 'q' },
              { type: 'assignment', id: 'q', output: '$F.div(1, 0)', next: 'e' },
              { type: 'end', id: 'e', output: '$NODE.q' },
            ],
          },
        },
      ],
      next: 'end',
    },
    { type: 'end', id: 'end', output: '$NODE.sources' },
  ],
};

const expected = {
  slow: { source: 'slow', hits: 3 },
  down: { __parallel_error__: expect.stringContaining('division by zero'), __branch__: 'down' },
};

describe('a failing parallel join branch while another is pending', () => {
  it('run mode: the failure is the branch slot, the flow completes', async () => {
    const flow = parseFlow(lookup, { registry });
    expect(await runFlow(flow, {})).toEqual(expected);
  });

  it('step mode: the parallel node records both slots', async () => {
    const flow = parseFlow(lookup, { registry });
    const steps = [];
    for await (const step of stepFlow(flow, {})) steps.push(step);
    expect(steps.map((s) => s.nodeId)).toEqual(['start', 'sources', 'end']);
    expect(steps[1]!.result).toEqual(expected);
  });

  it('worker: the execution completes with the sentinel slot', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    const worker = new FlowWorker({ store, flows, queue, registry, pollBlockMs: 20 });
    const client = new PlaitaClient({ store, flows, queue, registry });
    worker.start();
    try {
      const id = await client.start(lookup, {});
      const state = await client.waitFor(id, { timeoutMs: 10_000 });
      expect(state.status).toBe('completed');
      expect(state.result).toEqual(expected);
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
