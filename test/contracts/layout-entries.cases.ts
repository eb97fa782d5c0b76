import { describe, expect, it } from 'vitest';
import { encodeState } from '../../src/state/codec.js';
import type { ExecutionState, NodeTiming } from '../../src/state/execution-state.js';
import type { ExecutionStore } from '../../src/store/execution-store.js';
import {
  expectSameState,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

/**
 * Rewrites what `store` holds for `state` (already saved) in the layout written before timing
 * and input entries existed: `timings` and `$INPUT` in the header, no such entries. What an
 * execution in flight across the upgrade is stored as.
 */
export type LegacyLayoutHook = (store: ExecutionStore, state: ExecutionState) => Promise<void>;

const timing = (startedAt: number, ended: boolean): NodeTiming => ({
  startedAt: new Date(startedAt).toISOString(),
  endedAt: ended ? new Date(startedAt + 5).toISOString() : null,
  attempts: 1,
  durationMs: ended ? 5 : null,
});

/** `count` nodes run (each with a result and a closed timing), the next one started. */
function ranNodes(base: ExecutionState, count: number): ExecutionState {
  const results: Record<string, unknown> = {};
  const timings: Record<string, NodeTiming> = {};
  const attempts: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    results[`n${i}`] = { out: i };
    timings[`n${i}`] = timing(Date.UTC(2030, 0, 1) + i * 10, true);
    attempts[`n${i}`] = 1;
  }
  timings[`n${count}`] = timing(Date.UTC(2030, 0, 1) + count * 10, false);
  attempts[`n${count}`] = 1;
  return { ...withNodes(base, results), timings, attempts, version: base.version + 1 };
}

export function layoutEntryCases(factory: ExecutionStoreFactory, legacy?: LegacyLayoutHook): void {
  describe('timing and input entries', () => {
    const h = useHarness(factory);
    const load = (id: string) => h.store.load(id, { tenantId: h.tenant });

    it('a checkpoint costs the same after 200 nodes as after 2: timings are written per node', async () => {
      const bytesOf = async (state: ExecutionState, changed: string[]) => {
        let bytes = 0;
        await h.store.save(state, {
          changedNodes: changed.slice(0, 1),
          changedTimings: changed,
          onEncoded: (b) => (bytes = b),
        });
        return bytes;
      };
      const base = { ...h.state({ status: 'running' }), version: 0 };
      await h.store.save(ranNodes(base, 1));
      const early = await bytesOf(ranNodes(base, 2), ['n1', 'n2']);
      let state = ranNodes(base, 2);
      for (let n = 3; n <= 200; n++) {
        state = ranNodes(state, n);
        await h.store.save(state, {
          changedNodes: [`n${n - 1}`],
          changedTimings: [`n${n - 1}`, `n${n}`],
        });
      }
      const late = await bytesOf(ranNodes(state, 201), ['n200', 'n201']);
      // `$VISITS` and `attempts` are the per-node maps left in the header: about 9 bytes per
      // node each, where a timing in the header was 125.
      expect(late).toBeLessThan(early + 200 * 24);
      expectSameState(await load(base.executionId), ranNodes(state, 201));
    });

    it('timings keep their order across incremental saves, a removed and re-added one included', async () => {
      const v1 = {
        ...h.state(),
        timings: { a: timing(1, true), b: timing(2, true), c: timing(3, false) },
      };
      await h.store.save(v1);
      const v2 = {
        ...v1,
        version: 2,
        timings: { ...v1.timings, b: timing(20, true), d: timing(4, false) },
      };
      await h.store.save(v2, { changedNodes: [], changedTimings: ['b', 'd'] });
      expectSameState(await load(v1.executionId), v2);
      // An operator retry drops the failed node's timing and starts it again: it moves last.
      const { a, b, d } = v2.timings;
      const v3 = { ...v2, version: 3, timings: { a: a, b: b, d: d, c: timing(30, false) } };
      const v4 = { ...v3, version: 4, timings: { a: a, b: b, d: d } };
      await h.store.save(v4, { changedNodes: [], changedTimings: ['c'] });
      expectSameState(await load(v1.executionId), v4);
      await h.store.save(v3, { changedNodes: [], changedTimings: ['c'] });
      const loaded = await load(v1.executionId);
      expectSameState(loaded, v3);
      expect(Object.keys(loaded!.timings)).toEqual(['a', 'b', 'd', 'c']);
      // Dropped and started again in one save: it and every id after it have a new place.
      const v5 = {
        ...v3,
        version: 5,
        timings: { a: a, d: d, c: v3.timings.c, b: timing(50, false) },
      };
      await h.store.save(v5, { changedNodes: [], changedTimings: ['d', 'c', 'b'] });
      expect(Object.keys((await load(v1.executionId))!.timings)).toEqual(['a', 'd', 'c', 'b']);
    });

    it('without changedTimings an incremental save writes every timing', async () => {
      const v1 = ranNodes({ ...h.state(), version: 0 }, 2);
      await h.store.save(v1);
      const v2 = ranNodes(v1, 3);
      await h.store.save(v2, { changedNodes: ['n2'] });
      expectSameState(await load(v1.executionId), v2);
    });

    it('the input is written once: a checkpoint costs the same with a 200 KB input', async () => {
      const input = { document: 'x'.repeat(200 * 1024), id: 7 };
      const base = { ...h.state({ status: 'running' }), version: 0 };
      const v1 = ranNodes({ ...base, context: { ...base.context, $INPUT: input } }, 1);
      let bytes = 0;
      const onEncoded = (b: number) => (bytes = b);
      await h.store.save(v1, { onEncoded });
      expect(bytes).toBeGreaterThan(200 * 1024);
      const v2 = ranNodes(v1, 2);
      await h.store.save(v2, {
        changedNodes: ['n1'],
        changedTimings: ['n1', 'n2'],
        unchangedInput: true,
        onEncoded,
      });
      expect(bytes).toBeLessThan(4 * 1024);
      const loaded = await load(v1.executionId);
      expectSameState(loaded, v2);
      // The input keeps its place among the context's keys.
      expect(Object.keys(loaded!.context)).toEqual(Object.keys(v2.context));
    });

    it('a changed input is written again unless said unchanged; a removed one goes', async () => {
      const v1 = ranNodes({ ...h.state(), version: 0 }, 1);
      await h.store.save(v1);
      const v2 = { ...v1, version: 2, context: { ...v1.context, $INPUT: { edited: true } } };
      await h.store.save(v2, { changedNodes: [] });
      expectSameState(await load(v1.executionId), v2);
      const { $INPUT: _dropped, ...withoutInput } = v2.context;
      const v3 = { ...v2, version: 3, context: withoutInput };
      await h.store.save(v3, { changedNodes: [] });
      expectSameState(await load(v1.executionId), v3);
    });

    if (legacy)
      it('a checkpoint written before these entries (timings, input in the header) loads and saves on', async () => {
        const v1 = ranNodes({ ...h.state({ status: 'running' }), version: 0 }, 3);
        await h.store.save(v1);
        await legacy(h.store, v1);
        expectSameState(await load(v1.executionId), v1);
        // The worker's first save of a delivery names no timings: every one is written.
        const v2 = ranNodes(v1, 4);
        await h.store.save(v2, { changedNodes: ['n3'] });
        expectSameState(await load(v1.executionId), v2);
        const v3 = ranNodes(v2, 5);
        await h.store.save(v3, {
          changedNodes: ['n4'],
          changedTimings: ['n4', 'n5'],
          unchangedInput: true,
        });
        expectSameState(await load(v1.executionId), v3);
      });
  });
}

/** The header text the layout before these entries wrote for `state` (timings, input included). */
export function legacyHeader(state: ExecutionState): string {
  const context = Object.hasOwn(state.context, '$NODE')
    ? { ...state.context, $NODE: {} }
    : state.context;
  return encodeState({ ...state, context });
}

/**
 * Stored keys of timing entries start with `\t`, the input's is `\i` (store/shared/node-key.ts):
 * a stored key starting with either is not a node result.
 */
export const LAYOUT_KEY_PREFIXES = ['\\t', '\\i'] as const;
