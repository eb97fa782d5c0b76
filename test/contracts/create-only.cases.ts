import { describe, expect, it } from 'vitest';
import { ExecutionExistsError } from '../../src/errors/store-errors.js';
import {
  checkpointContext,
  expectSameState,
  rejectionOf,
  sleep,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

/**
 * `save(state, { createOnly: true })`: a start with a dedup key. Written only if no live record
 * exists, atomically with the check, so concurrent starts make one execution and a late start
 * never resets one that already ran.
 */
export function createOnlyCases(factory: ExecutionStoreFactory): void {
  describe('create-only saves', () => {
    const h = useHarness(factory);

    it('creates an absent execution, and refuses a stored one, writing nothing', async () => {
      const queued = h.state({ status: 'queued', context: checkpointContext({}) });
      await h.store.save(queued, { createOnly: true });
      expectSameState(await h.store.load(queued.executionId, { tenantId: h.tenant }), queued);

      const ran = withNodes({ ...queued, status: 'completed', version: 3 }, { a: 1 });
      await h.store.save(ran);
      const again = await rejectionOf(h.store.save(queued, { createOnly: true }));
      expect(again).toBeInstanceOf(ExecutionExistsError);
      expect(again).toMatchObject({ code: 'execution_exists', retryable: false });
      expectSameState(await h.store.load(queued.executionId, { tenantId: h.tenant }), ran);
    });

    it('of concurrent creates of one execution exactly one is written', async () => {
      const id = h.state().executionId;
      const attempts = Array.from({ length: 8 }, (_, i) =>
        h.state({ executionId: id, status: 'queued', context: checkpointContext({ by: i }) }),
      );
      // One store object: its concurrent saves may share a batch, a pool, a connection.
      const outcomes = await Promise.allSettled(
        attempts.map((state) => h.store.save(state, { createOnly: true })),
      );
      const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected')
          expect(outcome.reason).toBeInstanceOf(ExecutionExistsError);
      expectSameState(await h.store.load(id, { tenantId: h.tenant }), attempts[won[0]!]!);
    });

    it('replaces an execution whose terminal TTL has passed', async () => {
      const store = await h.open({ terminalTtlMs: 100 });
      const done = h.state({ status: 'completed', endedAt: new Date().toISOString() });
      await store.save(done);
      await sleep(300);
      const fresh = h.state({ executionId: done.executionId, status: 'queued' });
      await store.save(fresh, { createOnly: true });
      expectSameState(await store.load(done.executionId, { tenantId: h.tenant }), fresh);
    });

    it('is never fenced or incremental', async () => {
      const state = h.state();
      await expect(
        h.store.save(state, { createOnly: true, fence: { generation: 1 } }),
      ).rejects.toBeInstanceOf(RangeError);
      await expect(
        h.store.save(state, { createOnly: true, changedNodes: [] }),
      ).rejects.toBeInstanceOf(RangeError);
      expect(await h.store.load(state.executionId, { tenantId: h.tenant })).toBeNull();
    });
  });
}
