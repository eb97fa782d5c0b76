import { describe, expect, it } from 'vitest';
import { FlowError, MemoryExecutionStore, parseFlow, runFlow } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

// Issue 7 item 8: two nodes pointing at each other ran for ever and left the execution
// `running`. Every execution now has a maximum number of node visits.

const cycle = {
  flow_id: 'cycle',
  nodes: [
    { type: 'start', id: 'start', next: 'ping' },
    { type: 'assignment', id: 'ping', output: 1, next: 'pong' },
    { type: 'assignment', id: 'pong', output: 2, next: 'ping' },
  ],
};

async function failure(work: Promise<unknown>): Promise<FlowError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof FlowError) return error;
    throw error;
  }
  throw new Error('expected a FlowError');
}

describe('the step limit', () => {
  it('a cycle ends with step_limit at the default ceiling of 10,000 visits', async () => {
    const error = await failure(runFlow(parseFlow(cycle), {}));
    expect(error.type).toBe('step_limit');
    expect(error.message).toContain('10000 node visits');
  });

  it("a flow's maxSteps is honoured when below the ceiling", async () => {
    const error = await failure(runFlow(parseFlow({ ...cycle, maxSteps: 7 }), {}));
    expect(error.type).toBe('step_limit');
    expect(error.message).toContain('7 node visits');
  });

  it("the operator's ceiling wins over a larger maxSteps", async () => {
    const flow = parseFlow({ ...cycle, maxSteps: 1_000_000 });
    const error = await failure(runFlow(flow, {}, { limits: { maxSteps: 50 } }));
    expect(error.message).toContain('50 node visits');
  });

  it('a worker ends a cycling execution in error step_limit, never leaves it running', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    const worker = new FlowWorker({
      store,
      flows,
      queue,
      pollBlockMs: 20,
      engine: { limits: { maxSteps: 40 } },
    });
    const client = new PlaitaClient({ store, flows, queue });
    worker.start();
    try {
      const id = await client.start(cycle, {});
      const state = await client.waitFor(id, { timeoutMs: 20_000 });
      expect(state.status).toBe('error');
      expect(state.error).toMatchObject({ node: expect.any(String) });
      expect(JSON.stringify(state.error)).toContain('node visits');
    } finally {
      await worker.stop();
      await queue.close();
    }
  });

  it("while: maxIterations beyond the operator's ceiling fails at the ceiling", async () => {
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'w' },
        {
          type: 'while',
          id: 'w',
          maxIterations: 1_000_000_000,
          condition: { field: true, operator: 'eq', value: true },
          childFlow: {
            nodes: [
              { type: 'start', id: 's', next: 'e' },
              { type: 'end', id: 'e', output: 1 },
            ],
          },
          next: 'e',
        },
        { type: 'end', id: 'e', output: '$NODE.w' },
      ],
    });
    const error = await failure(runFlow(flow, {}, { limits: { maxIterations: 100 } }));
    expect(error.node).toBe('w');
    expect(error.message).toContain("operator's ceiling of 100 iterations");
  });
});
