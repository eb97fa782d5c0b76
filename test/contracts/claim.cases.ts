import { describe, expect, it } from 'vitest';
import { FenceRejectedError } from '../../src/errors/store-errors.js';
import { claimExecution, type ClaimResult } from '../../src/store/execution-store.js';
import {
  checkpointContext,
  expectSameState,
  rejectionOf,
  sleep,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

const TTL = 60_000;

/** `claimExecution` (the store's one-round-trip fast path where it has one): lease + state + cancel mark. */
export function claimCases(factory: ExecutionStoreFactory): void {
  describe('claiming an execution for a message', () => {
    const h = useHarness(factory);
    const claim = (executionId: string, owner: string, ttlMs = TTL): Promise<ClaimResult> =>
      claimExecution(h.store, executionId, { tenantId: h.tenant, owner, ttlMs });

    it('takes the lease and reads the latest checkpoint, results included, with no cancel mark', async () => {
      const first = h.state({ context: checkpointContext({ a: 1 }) });
      await h.store.save(first);
      const latest = withNodes(first, { a: 1, b: { deep: [2, 3] } });
      await h.store.save(latest, { changedNodes: ['b'] });
      const claimed = await claim(first.executionId, 'w1');
      expect(claimed.kind).toBe('claimed');
      if (claimed.kind !== 'claimed') return;
      expect(claimed.lease).toMatchObject({
        executionId: first.executionId,
        tenantId: h.tenant,
        owner: 'w1',
      });
      expect(claimed.lease.generation).toBeGreaterThan(0);
      expectSameState(claimed.state, latest);
      expect(claimed.cancelRequested).toBe(false);
      expect(await h.store.getLease(first.executionId, { tenantId: h.tenant })).toEqual(
        claimed.lease,
      );
    });

    it('reports a held lease as held and changes nothing', async () => {
      const state = h.state();
      await h.store.save(state);
      const first = await claim(state.executionId, 'w1');
      expect(await claim(state.executionId, 'w2')).toEqual({ kind: 'held' });
      expect(await h.store.getLease(state.executionId, { tenantId: h.tenant })).toEqual(
        first.kind === 'claimed' ? first.lease : null,
      );
    });

    it('reports an unknown execution (or another tenant’s) as absent and creates nothing', async () => {
      const state = h.state();
      await h.store.save(state);
      expect(await claim('no-such-execution', 'w1')).toEqual({ kind: 'absent' });
      expect(
        await claimExecution(h.store, state.executionId, {
          tenantId: `${h.tenant}-other`,
          owner: 'w1',
          ttlMs: TTL,
        }),
      ).toEqual({ kind: 'absent' });
      expect(await h.store.load('no-such-execution', { tenantId: h.tenant })).toBeNull();
      expect(await h.store.getLease(state.executionId, { tenantId: h.tenant })).toBeNull();
    });

    it('reads the cancel mark with the lease', async () => {
      const state = h.state();
      await h.store.save(state);
      expect(await h.store.requestCancel(state.executionId, { tenantId: h.tenant })).toBe(true);
      const claimed = await claim(state.executionId, 'w1');
      expect(claimed).toMatchObject({ kind: 'claimed', cancelRequested: true });
    });

    it('takes over an expired lease with a higher generation; the old holder is fenced out', async () => {
      const state = h.state();
      await h.store.save(state);
      const old = await claim(state.executionId, 'w1', 50);
      await sleep(80);
      const taken = await claim(state.executionId, 'w2');
      if (old.kind !== 'claimed' || taken.kind !== 'claimed') throw new Error('not claimed');
      expect(taken.lease.generation).toBeGreaterThan(old.lease.generation);
      const late = { ...state, version: state.version + 1 };
      const rejection = await rejectionOf(
        h.store.save(late, { fence: { generation: old.lease.generation } }),
      );
      expect(rejection).toBeInstanceOf(FenceRejectedError);
      expectSameState(await h.store.load(state.executionId, { tenantId: h.tenant }), state);
    });
  });
}
