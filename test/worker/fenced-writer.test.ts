import { describe, expect, it } from 'vitest';
import { FenceRejectedError, StoreUnavailableError } from '../../src/errors/store-errors.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import type { SaveOptions } from '../../src/store/execution-store.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { FakeClock } from '../../src/util/fake-clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { FencedWriter } from '../../src/worker/fenced-writer.js';
import { timerId, WaitTimers } from '../../src/worker/wait-timers.js';
import type { WorkerDeps } from '../../src/worker/worker-deps.js';

/**
 * Every state a handling writes goes through the FencedWriter: under its lease's generation,
 * one version after the last. A writer whose lease was taken over cannot overwrite the new
 * owner; ending an execution withdraws the timers of its wait. Real store, real queue.
 */
async function setup() {
  const store = new MemoryExecutionStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
  const clock = new FakeClock(Date.UTC(2030, 0, 1));
  const timers = new WaitTimers(queue, clock);
  const deps = {
    store,
    queue,
    clock,
    timers,
    log: silentLogger,
    metrics: null,
  } as unknown as WorkerDeps;
  const state = newExecutionState({ executionId: 'e1', flowHash: 'h', context: { $INPUT: {} } });
  await store.save(state);
  const lease = await store.acquireLease('e1', { owner: 'w1', ttlMs: 50 });
  if (!lease) throw new Error('no lease');
  return { store, queue, clock, deps, state, lease };
}

/** A node timing started at `at` and not finished. */
const started = (at = '2030-01-01T00:00:00.000Z') => ({
  startedAt: at,
  endedAt: null,
  attempts: 1,
  durationMs: null,
});

/** The options of every save made through `store` from now on. */
function recordSaveOptions(store: MemoryExecutionStore): SaveOptions[] {
  const options: SaveOptions[] = [];
  const save = store.save.bind(store);
  store.save = (s, o = {}) => {
    options.push(o);
    return save(s, o);
  };
  return options;
}

describe('FencedWriter', () => {
  it('writes one version after the last, under the lease', async () => {
    const { store, deps, state, lease } = await setup();
    const writer = new FencedWriter(deps, lease, state);
    await writer.persist({ ...state, status: 'running' }, []);
    await writer.persist({ ...writer.state, context: { $INPUT: {}, $LAST_NODE: 'a' } }, null);
    const stored = await store.load('e1');
    expect(stored).toMatchObject({ status: 'running', version: 2 });
    expect(writer.state.version).toBe(2);
  });

  it('names the changed timings and an unchanged input only against a state it saved itself (one it was handed may keep them in its header)', async () => {
    const { store, deps, state, lease } = await setup();
    const saves = recordSaveOptions(store);
    const writer = new FencedWriter(deps, lease, state);
    await writer.persist({ ...state, status: 'running', timings: { a: started() } }, []);
    await writer.persist({ ...writer.state, timings: { a: started(), b: started() } }, ['a']);
    await writer.persist({ ...writer.state, status: 'completed' }, null);
    await writer.persist({ ...writer.state, context: { $INPUT: { edited: true } } }, []);
    const options = saves.map((o) => [o.changedTimings, o.unchangedInput]);
    expect(options).toEqual([
      [undefined, undefined],
      [['b'], true],
      [undefined, undefined],
      [[], false],
    ]);
    expect((await store.load('e1'))!.timings).toEqual({ a: started(), b: started() });
  });

  it('a staged state is written by the next save: what changed is named against what was stored', async () => {
    const { store, deps, state, lease } = await setup();
    const writer = new FencedWriter(deps, lease, state);
    await writer.persist({ ...state, status: 'running', timings: { a: started() } }, []);
    const saves = recordSaveOptions(store);
    // An inert node's start: adopted unsaved, then its step's checkpoint carries it.
    writer.stage({ ...writer.state, timings: { ...writer.state.timings, b: started() } });
    expect((await store.load('e1'))!.timings).toEqual({ a: started() });
    await writer.persist({ ...writer.state, context: { $INPUT: {}, $LAST_NODE: 'b' } }, []);
    expect(saves.map((o) => o.changedTimings)).toEqual([['b']]);
    expect(await store.load('e1')).toMatchObject({
      version: 2,
      timings: { a: started(), b: started() },
    });
  });

  it('names what changed against a state loaded from a record of the entry layout, from the first save', async () => {
    const { store, deps, state, lease } = await setup();
    const loaded = (await store.load('e1'))!;
    const saves = recordSaveOptions(store);
    await new FencedWriter(deps, lease, loaded).persist(
      { ...loaded, timings: { a: started() } },
      [],
    );
    await new FencedWriter(deps, lease, state).persist({ ...state, timings: { a: started() } }, []);
    expect(saves.map((o) => o.changedTimings)).toEqual([['a'], undefined]);
  });

  it('after a save that failed but was applied (a timeout after the commit), the next save rewrites the whole state', async () => {
    const { store, deps, state, lease } = await setup();
    const writer = new FencedWriter(deps, lease, state);
    const s0 = {
      ...state,
      status: 'running' as const,
      context: { $INPUT: {}, $NODE: { a: 1 } },
      timings: { a: started('2030-01-01T00:00:00.000Z') },
    };
    await writer.persist(s0, []);
    await writer.persist({ ...writer.state }, ['a']);
    // The next step is stored, but its reply never arrives.
    const save = store.save.bind(store);
    store.save = async (s, o) => {
      store.save = save;
      await save(s, o);
      throw new StoreUnavailableError('timed out after the write');
    };
    const s1 = {
      ...writer.state,
      context: { $INPUT: {}, $NODE: { a: 1, b: 2 } },
      timings: { ...writer.state.timings, b: started('2030-01-01T00:00:01.000Z') },
    };
    await expect(writer.persist(s1, ['b'])).rejects.toBeInstanceOf(StoreUnavailableError);
    // The decision table ends it with the last good checkpoint: nothing of s1 may remain.
    await writer.writeError({ code: 'x', name: 'X', message: 'gave up', retryable: false });
    const stored = await store.load('e1');
    expect(stored!.status).toBe('error');
    expect(stored!.context.$NODE).toEqual({ a: 1 });
    expect(Object.keys(stored!.timings)).toEqual(['a']);
  });

  it('a writer whose lease was taken over is refused, and the new owner’s state stands', async () => {
    const { store, deps, state, lease } = await setup();
    const stale = new FencedWriter(deps, lease, state);
    await new Promise((resolve) => setTimeout(resolve, 60)); // the 50 ms lease expires
    const next = await store.acquireLease('e1', { owner: 'w2', ttlMs: 10_000 });
    expect(next!.generation).toBeGreaterThan(lease.generation);
    const owner = new FencedWriter(deps, next!, state);
    await owner.persist({ ...state, status: 'running' }, []);
    await expect(stale.persist({ ...state, status: 'cancelled' }, [])).rejects.toBeInstanceOf(
      FenceRejectedError,
    );
    expect((await store.load('e1'))!.status).toBe('running');
  });

  it('cancel and writeError end the execution and withdraw the wait’s timers', async () => {
    const { queue, deps, state, lease, clock } = await setup();
    const dueAt = new Date(clock.now() + 60_000).toISOString();
    const waiting = {
      ...state,
      status: 'suspended' as const,
      waiting: { nodeId: 'w', eventType: 'go', filter: {}, dueAt },
    };
    const id = timerId('default', 'e1', 'w', 0, 'timeout');
    await queue.enqueue(
      { v: 1, kind: 'timer', executionId: 'e1', tenantId: 'default', nodeId: 'w', timerId: id },
      { delayMs: 60_000, dedupId: id },
    );
    expect((await queue.stats()).delayed).toBe(1);
    const writer = new FencedWriter(deps, lease, waiting);
    expect(await writer.cancel('operator')).toEqual({ kind: 'cancelled' });
    expect(writer.state).toMatchObject({ status: 'cancelled', waiting: null });
    expect((await queue.stats()).delayed).toBe(0);
  });

  it('an execution that ends in error is logged at warn with what failed, where, and whose; checkpoints only at info', async () => {
    const { deps, state, lease } = await setup();
    const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const at =
      (level: string) =>
      (fields: Record<string, unknown>, message: string): void => {
        lines.push({ level, fields, message });
      };
    // At warn, as the CLI's default: info is off.
    const log = {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: () => log,
      isLevelEnabled: (level: string) => level === 'warn' || level === 'error',
    };
    const writer = new FencedWriter({ ...deps, log }, lease, {
      ...state,
      flowId: 'billing',
    });
    await writer.persist({ ...writer.state, status: 'running' }, []);
    expect(lines).toEqual([]);
    await writer.writeError({
      code: 'node_failed',
      name: 'NodeExecutionError',
      message: 'upstream said 502',
      retryable: false,
      node: 'call',
    });
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'execution failed',
        fields: expect.objectContaining({
          executionId: 'e1',
          tenantId: 'default',
          flowId: 'billing',
          status: 'error',
          node: 'call',
          errorCode: 'node_failed',
          error: 'upstream said 502',
        }) as unknown,
      },
    ]);
  });
});
