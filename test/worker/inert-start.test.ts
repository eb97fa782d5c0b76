import { afterEach, describe, expect, it } from 'vitest';
import { defaultFunctions, defaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import type { EngineOptions } from '../../src/engine/engine-options.js';
import type { ExecutionState } from '../../src/state/execution-state.js';
import type { SaveOptions } from '../../src/store/execution-store.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/** What each save stored: enough to tell which transitions were made durable, and when. */
interface SaveSeen {
  status: string;
  version: number;
  nodes: string[];
  open: string[];
  closed: string[];
}

class RecordingStore extends MemoryExecutionStore {
  readonly saves: SaveSeen[] = [];

  override async save(state: ExecutionState, options?: SaveOptions): Promise<void> {
    await super.save(state, options);
    const timings = Object.entries(state.timings);
    this.saves.push({
      status: state.status,
      version: state.version,
      nodes: Object.keys(state.context.$NODE ?? {}),
      open: timings.filter(([, t]) => t.endedAt === null).map(([id]) => id),
      closed: timings.filter(([, t]) => t.endedAt !== null).map(([id]) => id),
    });
  }
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Runs `nodes` on a worker over a recording store; also what `probe` nodes saw stored. */
async function run(
  nodes: Record<string, unknown>[],
  engine: EngineOptions = {},
): Promise<{ store: RecordingStore; final: ExecutionState; probed: ExecutionState[] }> {
  const store = new RecordingStore();
  const probed: ExecutionState[] = [];
  const registry = defaultRegistry.copy().register(
    defineNode({
      type: 'probe',
      run: async (ctx) => {
        probed.push((await store.load(ctx.executionId))!);
        return 'probed';
      },
    }),
  );
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    registry,
    pollBlockMs: 20,
    engine,
    // Every node saved before the next runs: the pickup is what is looked at here (replayable
    // nodes riding along unsaved: test/worker/ride-along.test.ts).
    checkpointIntervalMs: 0,
  });
  const client = new PlaitaClient({ store, flows, queue, registry });
  worker.start();
  stop = async () => {
    await worker.stop();
    await queue.close();
  };
  const id = await client.start({ nodes }, { n: 1 });
  const final = await client.waitFor(id, { timeoutMs: 5000 });
  return { store, final, probed };
}

/** The saves of a run whose first node's start is saved before it runs (the pickup). */
const savedStartFirst = [
  ['queued', []],
  ['running', ['a']],
  ['running', ['end']],
  ['completed', []],
];

const assignFirst = [
  { type: 'start', id: 'start', next: 'a' },
  { type: 'assignment', id: 'a', output: '$F.add($INPUT.n, 1)', next: 'end' },
  { type: 'end', id: 'end', output: '$NODE.a' },
];

describe('the pickup checkpoint: a node’s start is durable before it runs, unless it is inert', () => {
  it('a first node that may crash its worker (a plugin) has its start saved before it runs', async () => {
    const { store, final, probed } = await run([
      { type: 'start', id: 'start', next: 'p' },
      { type: 'probe', id: 'p', next: 'end' },
      { type: 'end', id: 'end', output: '$NODE.p' },
    ]);
    expect(final.result).toBe('probed');
    expect(probed[0]?.status).toBe('running');
    expect(probed[0]?.timings.p).toMatchObject({ endedAt: null, attempts: 1 });
    expect(store.saves.map((s) => [s.status, s.open])).toEqual([
      ['queued', []],
      ['running', ['p']], // the pickup
      ['running', ['end']],
      ['completed', []],
    ]);
  });

  it('an inert first node (an assignment) runs first: its checkpoint also moves to running', async () => {
    const { store, final } = await run(assignFirst);
    expect(final.result).toBe(2);
    expect(store.saves).toEqual([
      { status: 'queued', version: 0, nodes: [], open: [], closed: [] },
      {
        status: 'running',
        version: 1,
        nodes: ['start', 'a'],
        open: ['end'],
        closed: ['start', 'a'],
      },
      {
        status: 'completed',
        version: 2,
        nodes: ['start', 'a', 'end'],
        open: [],
        closed: ['start', 'a', 'end'],
      },
    ]);
    // Nothing an operator reads is lost with the pickup save.
    expect(final.attempts).toEqual({ start: 1, a: 1, end: 1 });
    expect(final.timings.a?.startedAt).toEqual(expect.any(String));
  });

  it('a host `$F` function makes an assignment first node save its start first again', async () => {
    const functions = defaultFunctions.copy().register('twice', (x: unknown) => Number(x) * 2);
    const { store, final } = await run(
      [
        { type: 'start', id: 'start', next: 'a' },
        { type: 'assignment', id: 'a', output: '$F.twice($INPUT.n)', next: 'end' },
        { type: 'end', id: 'end', output: '$NODE.a' },
      ],
      { functions },
    );
    expect(final.result).toBe(2);
    expect(store.saves.map((s) => [s.status, s.open])).toEqual(savedStartFirst);
  });

  it('so does an engine hook (host code that fires in that step), and a retry policy on the node', async () => {
    const seen: string[] = [];
    const hooked = await run(assignFirst, { hooks: { onNodeStart: (e) => seen.push(e.node) } });
    expect(seen).toEqual(['start', 'a', 'end']);
    expect(hooked.store.saves.map((s) => [s.status, s.open])).toEqual(savedStartFirst);
    await stop?.();
    const retrying = await run([
      { type: 'start', id: 'start', next: 'a' },
      { ...assignFirst[1], errorHandler: { retryTimes: 2, retryDelay: 10 } },
      assignFirst[2]!,
    ]);
    expect(retrying.final.result).toBe(2);
    expect(retrying.store.saves.map((s) => [s.status, s.open])).toEqual(savedStartFirst);
  });

  it('a host cost estimate on a built-in function is host code too', () => {
    const builtin = defaultFunctions.get('add')!;
    const costed = defaultFunctions.copy().register('add', builtin.fn, {
      override: true,
      cost: () => 1,
    });
    expect(defaultFunctions.onlyBuiltins()).toBe(true);
    expect(costed.onlyBuiltins()).toBe(false);
    const back = costed.copy().register('add', builtin.fn, { override: true });
    expect(back.onlyBuiltins()).toBe(true);
  });
});
