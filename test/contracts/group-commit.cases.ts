import { describe, expect, it } from 'vitest';
import { FenceRejectedError } from '../../src/errors/store-errors.js';
import { StateTooLargeError } from '../../src/errors/state-errors.js';
import {
  checkpointContext,
  expectSameState,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

const TTL = 60_000;

/**
 * Saves made in one tick (a store may commit them together, issue 11's group commit): each
 * still succeeds or fails on its own, and resolves only once it is stored.
 */
export function groupCommitCases(factory: ExecutionStoreFactory, persistent: boolean): void {
  describe('saves made together', () => {
    const h = useHarness(factory);

    it('saves accepted before close() are written, not dropped: the next store object sees them', async () => {
      const store = await h.open();
      await store.save(h.state()); // connected, migrated: a store in use
      const states = [h.state(), h.state()];
      // In the same turn as close(): a store that commits in groups still holds them.
      const saving = states.map((s) => store.save(s));
      await store.close();
      await Promise.all(saving); // written, not rejected as closed
      if (!persistent) return; // a memory store is gone with its object
      const reopened = await h.open();
      for (const s of states)
        expectSameState(await reopened.load(s.executionId, { tenantId: h.tenant }), s);
    });

    it('close() also waits for a save the batch sent again on its own (a new execution saved incrementally)', async () => {
      const store = await h.open();
      await store.save(h.state()); // connected, migrated: a store in use
      const fresh = withNodes(h.state(), { a: 1 });
      const other = h.state();
      const saving = [store.save(fresh, { changedNodes: ['a'] }), store.save(other)];
      await store.close();
      await Promise.all(saving);
      if (!persistent) return;
      const reopened = await h.open();
      expectSameState(await reopened.load(fresh.executionId, { tenantId: h.tenant }), fresh);
      expectSameState(await reopened.load(other.executionId, { tenantId: h.tenant }), other);
    });

    it('a fenced-out save is rejected alone; the saves beside it land', async () => {
      const states = [h.state(), h.state(), h.state()];
      await Promise.all(states.map((s) => h.store.save(s)));
      const lease = await h.store.acquireLease(states[1]!.executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: TTL,
      });
      const next = states.map((s) => withNodes(s, { a: s.executionId }));
      const settled = await Promise.allSettled(
        next.map((s, i) =>
          h.store.save(s, i === 1 ? { fence: { generation: lease!.generation + 1 } } : {}),
        ),
      );
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(FenceRejectedError);
      const loaded = await Promise.all(
        states.map((s) => h.store.load(s.executionId, { tenantId: h.tenant })),
      );
      expectSameState(loaded[0]!, next[0]!);
      expectSameState(loaded[1]!, states[1]!);
      expectSameState(loaded[2]!, next[2]!);
    });

    it('an oversized save fails alone, and an incremental save of a new execution is stored whole', async () => {
      const store = await h.open({ maxStateBytes: 8 * 1024 });
      const kept = h.state();
      await store.save(kept);
      const fresh = h.state({ context: checkpointContext({ a: 1, b: 2 }) });
      const big = withNodes(kept, { huge: 'x'.repeat(16 * 1024) });
      const fine = withNodes(kept, { small: 1 });
      const other = h.state();
      const settled = await Promise.allSettled([
        store.save(fresh, { changedNodes: ['b'] }),
        store.save(big, { changedNodes: ['huge'] }),
        store.save(other),
      ]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(StateTooLargeError);
      expectSameState(await store.load(fresh.executionId, { tenantId: h.tenant }), fresh);
      expectSameState(await store.load(kept.executionId, { tenantId: h.tenant }), kept);
      await store.save(fine, { changedNodes: ['small'] });
      expectSameState(await store.load(kept.executionId, { tenantId: h.tenant }), fine);
    });

    it('releases made together each give back only their own lease', async () => {
      const states = [h.state(), h.state(), h.state()];
      await Promise.all(states.map((s) => h.store.save(s)));
      const leases = await Promise.all(
        states.map((s, i) =>
          h.store.acquireLease(s.executionId, { tenantId: h.tenant, owner: `w${i}`, ttlMs: TTL }),
        ),
      );
      await Promise.all(
        states.map((s, i) =>
          h.store.releaseLease(s.executionId, {
            tenantId: h.tenant,
            owner: `w${i}`,
            // The second one names a generation it does not hold: its lease stays.
            generation: leases[i]!.generation + (i === 1 ? 1 : 0),
          }),
        ),
      );
      const held = await Promise.all(
        states.map((s) => h.store.getLease(s.executionId, { tenantId: h.tenant })),
      );
      expect(held.map((lease) => lease?.owner ?? null)).toEqual([null, 'w1', null]);
    });

    it('more saves in one tick than one batch holds all land, each readable once resolved', async () => {
      const states = Array.from({ length: 150 }, (_, i) =>
        h.state({ context: checkpointContext({ n: i }) }),
      );
      await Promise.all(
        states.map(async (s) => {
          await h.store.save(s);
          // Resolved means stored: a read right after sees it.
          expectSameState(await h.store.load(s.executionId, { tenantId: h.tenant }), s);
        }),
      );
      expect((await h.store.list({ tenantId: h.tenant, limit: 200 })).items).toHaveLength(150);
    });
  });
}
