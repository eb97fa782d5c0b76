import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/util/fake-clock.js';
import {
  expectSameState,
  sleep,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

const HOUR = 3600_000;

export function expiryCases(factory: ExecutionStoreFactory, expiresBySweep: boolean): void {
  describe('terminal TTL', () => {
    const h = useHarness(factory);

    it('a terminal execution is gone once its TTL has passed, and the sweep removes it', async () => {
      const store = await h.open({ terminalTtlMs: 150 });
      const done = withNodes(
        h.state({ status: 'completed', endedAt: new Date().toISOString() }),
        { a: 1 },
        1,
      );
      const running = withNodes(h.state({ status: 'running' }), { a: 1 }, 1);
      await store.save(done);
      await store.save(running);
      expectSameState(await store.load(done.executionId, { tenantId: h.tenant }), done);
      await sleep(400);
      expect(await store.load(done.executionId, { tenantId: h.tenant })).toBeNull();
      expect((await store.list({ tenantId: h.tenant })).items.map((i) => i.executionId)).toEqual([
        running.executionId,
      ]);
      expect(await store.getLease(done.executionId, { tenantId: h.tenant })).toBeNull();
      const swept = await store.sweepExpired();
      if (expiresBySweep) expect(swept).toBeGreaterThanOrEqual(1);
      expect(await store.load(done.executionId, { tenantId: h.tenant })).toBeNull();
      expectSameState(await store.load(running.executionId, { tenantId: h.tenant }), running);
    });

    it('terminalTtlMs 0 keeps terminal executions forever', async () => {
      const store = await h.open({ terminalTtlMs: 0 });
      const done = h.state({
        status: 'error',
        error: { code: 'x', name: 'E', message: 'm', retryable: false },
      });
      await store.save(done);
      await store.sweepExpired(Date.now() + 100 * 365 * 24 * HOUR);
      expectSameState(await store.load(done.executionId, { tenantId: h.tenant }), done);
    });

    it('a terminal execution saved as running again (operator retry) no longer expires', async () => {
      const store = await h.open({ terminalTtlMs: 150 });
      const failed = h.state({
        status: 'error',
        error: { code: 'x', name: 'E', message: 'm', retryable: false },
      });
      await store.save(failed);
      const retried = { ...failed, status: 'running' as const, error: null, version: 1 };
      await store.save(retried);
      await sleep(400);
      await store.sweepExpired();
      expectSameState(await store.load(failed.executionId, { tenantId: h.tenant }), retried);
    });

    it("the store's clock, not the process's, says when a terminal execution expires", async () => {
      const clock = new FakeClock(Date.now());
      const store = await h.open({ terminalTtlMs: HOUR, clock });
      const done = h.state({ status: 'completed' });
      const running = h.state({ status: 'running' });
      await store.save(done);
      await store.save(running);
      await clock.advance(2 * HOUR);
      // The sweep's "now" is the store's clock (Redis keys expire on the server's clock, so a
      // read alone would not tell): two hours on, the terminal execution is past its TTL.
      expect(await store.sweepExpired()).toBeGreaterThanOrEqual(1);
      expect(await store.load(done.executionId, { tenantId: h.tenant })).toBeNull();
      expectSameState(await store.load(running.executionId, { tenantId: h.tenant }), running);
    });

    if (expiresBySweep) {
      it('sweepExpired(now) removes what has expired by `now` and reports how many', async () => {
        const store = await h.open({ terminalTtlMs: HOUR });
        const states = [h.state({ status: 'completed' }), h.state({ status: 'cancelled' })];
        for (const state of states) await store.save(state);
        const kept = h.state({ status: 'suspended' });
        await store.save(kept);
        expect(await store.sweepExpired(Date.now() + 2 * HOUR)).toBeGreaterThanOrEqual(2);
        for (const state of states)
          expect(await store.load(state.executionId, { tenantId: h.tenant })).toBeNull();
        expectSameState(await store.load(kept.executionId, { tenantId: h.tenant }), kept);
      });
    }
  });
}
