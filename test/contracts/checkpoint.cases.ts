import { describe, expect, it } from 'vitest';
import { StateTooLargeError } from '../../src/errors/state-errors.js';
import {
  checkpointContext,
  expectSameState,
  rejectionOf,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

const KB = 1024;

export function checkpointCases(factory: ExecutionStoreFactory): void {
  describe('checkpoints', () => {
    const h = useHarness(factory);
    const load = (id: string) => h.store.load(id, { tenantId: h.tenant });

    it('an incremental save writes only the changed nodes and still loads the full context', async () => {
      const v1 = withNodes(h.state(), { start: { n: 1 }, fetch: { rows: [1, 2] } }, 1);
      await h.store.save(v1);
      // `start` differs in the state passed, but is not named as changed: the store keeps the
      // stored one, which proves it was not rewritten.
      const v2 = withNodes(v1, {
        start: { n: 'changed in memory' },
        fetch: { rows: [1, 2] },
        map: new Map([[1, 2]]),
      });
      await h.store.save(v2, { changedNodes: ['map'] });
      const loaded = await load(v1.executionId);
      expect(loaded!.context.$NODE).toEqual({
        start: { n: 1 },
        fetch: { rows: [1, 2] },
        map: new Map([[1, 2]]),
      });
      expect(loaded!.context.$LAST_NODE).toBe('map');
      expect(loaded!.version).toBe(2);
    });

    it('an incremental save replaces a changed node and removes a listed node that is gone', async () => {
      const v1 = withNodes(h.state(), { a: 1, b: 2, c: 3 }, 1);
      await h.store.save(v1);
      const v2 = withNodes(v1, { a: 1, b: 'two', d: 4 });
      await h.store.save(v2, { changedNodes: ['b', 'c', 'd'] });
      expectSameState(await load(v1.executionId), v2);
    });

    it('$NODE keeps the order results were first recorded across incremental saves', async () => {
      const v1 = withNodes(h.state(), { first: 1, second: 2 }, 1);
      await h.store.save(v1);
      const v2 = withNodes(v1, { first: 'again', second: 2, third: 3 });
      await h.store.save(v2, { changedNodes: ['first', 'third'] });
      expect(Object.keys((await load(v1.executionId))!.context.$NODE as object)).toEqual([
        'first',
        'second',
        'third',
      ]);
    });

    it('without $VISITS, $NODE still keeps the order results were first recorded', async () => {
      const base = h.state();
      const save = (nodes: Record<string, unknown>, version: number, changedNodes?: string[]) =>
        h.store.save(
          { ...base, version, context: { $NODE: nodes } },
          changedNodes ? { changedNodes } : {},
        );
      await save({ zeta: 1, alpha: 2 }, 1);
      await save({ zeta: 1, alpha: 2, mid: 3 }, 2, ['mid']);
      await save({ zeta: 'z', alpha: 2, mid: 3, beta: 4 }, 3, ['beta', 'zeta']);
      const loaded = await load(base.executionId);
      expect(Object.keys(loaded!.context.$NODE as object)).toEqual([
        'zeta',
        'alpha',
        'mid',
        'beta',
      ]);
      expect(loaded!.context.$NODE).toEqual({ zeta: 'z', alpha: 2, mid: 3, beta: 4 });
    });

    it('changedNodes on an execution not stored yet writes every node', async () => {
      const state = withNodes(h.state(), { a: 1, b: 2 }, 1);
      await h.store.save(state, { changedNodes: ['b'] });
      expectSameState(await load(state.executionId), state);
    });

    it('a full rewrite removes node results no longer in the context', async () => {
      const v1 = withNodes(h.state(), { a: 1, b: 2, c: 3 }, 1);
      await h.store.save(v1);
      const v2 = withNodes(v1, { a: 1 });
      await h.store.save(v2);
      expectSameState(await load(v1.executionId), v2);
    });

    it('the size guard counts the stored nodes across incremental saves, names the largest three, and writes nothing', async () => {
      const store = await h.open({ maxStateBytes: 20 * KB });
      const nodes: Record<string, string> = {};
      let state = withNodes(h.state(), {}, 0);
      await store.save(state);
      for (const [id, size] of [
        ['a', 6],
        ['b', 5],
        ['c', 4],
      ] as const) {
        nodes[id] = 'x'.repeat(size * KB);
        state = withNodes(state, { ...nodes });
        await store.save(state, { changedNodes: [id] });
      }
      const error = await rejectionOf(
        store.save(withNodes(state, { ...nodes, d: 'y'.repeat(7 * KB) }), { changedNodes: ['d'] }),
      );
      expect(error).toBeInstanceOf(StateTooLargeError);
      expect(error.retryable).toBe(false);
      const tooLarge = error as StateTooLargeError;
      expect(tooLarge.limitBytes).toBe(20 * KB);
      expect(tooLarge.bytes).toBeGreaterThan(22 * KB);
      expect(tooLarge.largest.map((e) => e.path)).toEqual(['$NODE.d', '$NODE.a', '$NODE.b']);
      expectSameState(await store.load(state.executionId, { tenantId: h.tenant }), state);

      // Shrinking a stored node makes room: the running total goes down as well as up.
      const shrunk = withNodes(state, { ...nodes, a: 'small' });
      await store.save(shrunk, { changedNodes: ['a'] });
      const grown = withNodes(shrunk, { ...nodes, a: 'small', d: 'y'.repeat(7 * KB) });
      await store.save(grown, { changedNodes: ['d'] });
      expectSameState(await store.load(state.executionId, { tenantId: h.tenant }), grown);
    });

    it('a full save over maxStateBytes rejects with StateTooLargeError and writes nothing', async () => {
      const store = await h.open({ maxStateBytes: 4 * KB });
      const state = withNodes(h.state(), { big: 'x'.repeat(5 * KB), small: 1 }, 1);
      const error = await rejectionOf(store.save(state));
      expect(error.code).toBe('state_too_large');
      expect((error as StateTooLargeError).largest[0]).toMatchObject({ path: '$NODE.big' });
      expect(await store.load(state.executionId, { tenantId: h.tenant })).toBeNull();
    });

    it('delete removes the execution, its node results and its lease', async () => {
      const state = withNodes(h.state(), { a: 1, b: 2 }, 1);
      await h.store.save(state);
      await h.store.acquireLease(state.executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: 60_000,
      });
      expect(await h.store.delete(state.executionId, { tenantId: h.tenant })).toBe(true);
      expect(await h.store.delete(state.executionId, { tenantId: h.tenant })).toBe(false);
      expect(await load(state.executionId)).toBeNull();
      expect(await h.store.getLease(state.executionId, { tenantId: h.tenant })).toBeNull();
      expect((await h.store.list({ tenantId: h.tenant })).items).toEqual([]);
      // Saved again under the same id, nothing of the old execution comes back.
      const again = {
        ...h.state({ executionId: state.executionId }),
        context: checkpointContext({ c: 3 }),
      };
      await h.store.save(again, { changedNodes: [] });
      expectSameState(await load(state.executionId), again);
    });
  });
}
