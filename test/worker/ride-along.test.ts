import { afterEach, describe, expect, it } from 'vitest';
import { defaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import type { ExecutionState } from '../../src/state/execution-state.js';
import type { SaveOptions } from '../../src/store/execution-store.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * docs/durable-contract.md §5 step 5: an effectful node's result is stored before the next node
 * runs; a replayable node's rides along with the next save. Saves are forced on suspend, end
 * and failure, before an effectful node starts, and once `checkpointIntervalMs` has passed.
 */
class RecordingStore extends MemoryExecutionStore {
  readonly saves: Array<{ status: string; nodes: string[] }> = [];

  override async save(state: ExecutionState, options?: SaveOptions): Promise<void> {
    await super.save(state, options);
    this.saves.push({ status: state.status, nodes: Object.keys(state.context.$NODE ?? {}) });
  }
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const registry = defaultRegistry.copy().register(
  defineNode({
    type: 'effect',
    run: async (ctx) => {
      const ms = Number((ctx.def as Record<string, unknown>).ms ?? 0);
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      return ctx.nodeId;
    },
  }),
);

async function run(nodes: Record<string, unknown>[], checkpointIntervalMs?: number) {
  const store = new RecordingStore();
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    registry,
    pollBlockMs: 20,
    metrics: null,
    ...(checkpointIntervalMs === undefined ? {} : { checkpointIntervalMs }),
  });
  const client = new PlaitaClient({ store, flows, queue, registry });
  worker.start();
  stop = async () => {
    await worker.stop();
    await queue.close();
  };
  const id = await client.start({ nodes }, { n: 1 });
  const final = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
  // The start's own save (queued) is the client's, not the worker's.
  return { final, saves: store.saves.slice(1) };
}

const chainOf = (middle: Array<Record<string, unknown> & { id: string }>) => [
  { type: 'start', id: 'start', next: middle[0]?.id ?? 'end' },
  ...middle.map((node, i) => ({ ...node, next: middle[i + 1]?.id ?? 'end' })),
  { type: 'end', id: 'end', output: '$NODE' },
];
const assign = (id: string, output: unknown) => ({ type: 'assignment', id, output });

describe('replayable nodes ride along with the next save', () => {
  it('five assignments: one save, at the end, with every result', async () => {
    const { final, saves } = await run(
      chainOf(['a1', 'a2', 'a3', 'a4', 'a5'].map((id) => assign(id, '$F.add($INPUT.n, 1)'))),
    );
    expect(final.status).toBe('completed');
    expect(saves).toEqual([
      { status: 'completed', nodes: ['start', 'a1', 'a2', 'a3', 'a4', 'a5', 'end'] },
    ]);
    expect(Object.keys(final.timings)).toEqual(['start', 'a1', 'a2', 'a3', 'a4', 'a5', 'end']);
  });

  it('an effectful node is stored before the next runs, and its start before it runs', async () => {
    const { saves } = await run(
      chainOf([assign('a1', 1), { type: 'effect', id: 'e' }, assign('a2', 2), assign('a3', 3)]),
    );
    expect(saves).toEqual([
      // a1 rode along until e was next: a1's result and e's start, before e runs
      { status: 'running', nodes: ['start', 'a1'] },
      { status: 'running', nodes: ['start', 'a1', 'e'] }, // e's result, before a2 runs
      { status: 'completed', nodes: ['start', 'a1', 'e', 'a2', 'a3', 'end'] },
    ]);
  });

  it('a node reading the clock is effectful: stored before the next node runs', async () => {
    const { saves } = await run(chainOf([assign('at', '$F.now()'), assign('a', 1)]));
    expect(saves.map((s) => s.nodes.at(-1))).toEqual(['at', 'end']);
  });

  it('checkpointIntervalMs 0 saves every node, as before', async () => {
    const { saves } = await run(chainOf([assign('a1', 1), assign('a2', 2)]), 0);
    expect(saves.map((s) => s.nodes.at(-1))).toEqual(['a1', 'a2', 'end']);
  });

  it('a long replayable run is saved once checkpointIntervalMs has passed', async () => {
    // Replayable nodes that each take a few milliseconds: several saves, not one at the end.
    const nodes = ['s1', 's2', 's3', 's4', 's5', 's6'].map((id) =>
      assign(id, "$F.len($F.sort($F.split($F.mul('b,a,', 20000), ',')))"),
    );
    const { final, saves } = await run(chainOf(nodes), 1);
    expect(final.status, JSON.stringify(final.error)).toBe('completed');
    expect(saves.length).toBeGreaterThan(1);
  });
});
