import { describe, expect, it } from 'vitest';
import { FenceRejectedError } from '../../src/errors/store-errors.js';
import { claimExecution } from '../../src/store/execution-store.js';
import {
  expectSameState,
  rejectionOf,
  sleep,
  type ExecutionStoreFactory,
  useHarness,
} from './store-harness.js';

const TTL = 60_000;

export function leaseCases(factory: ExecutionStoreFactory): void {
  describe('leases and fenced saves', () => {
    const h = useHarness(factory);
    const saved = async () => {
      const state = h.state();
      await h.store.save(state);
      return state;
    };

    it('acquire takes the lease, getLease reports it, and the generation starts above 0', async () => {
      const { executionId } = await saved();
      const before = Date.now();
      const lease = await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: TTL,
      });
      expect(lease).toMatchObject({ executionId, tenantId: h.tenant, owner: 'w1' });
      expect(lease!.generation).toBeGreaterThan(0);
      expect(lease!.expiresAt).toBeGreaterThanOrEqual(before + TTL);
      expect(lease!.expiresAt).toBeLessThanOrEqual(Date.now() + TTL);
      expect(await h.store.getLease(executionId, { tenantId: h.tenant })).toEqual(lease);
    });

    it('another owner cannot take a held lease; the holder re-acquires with a new generation', async () => {
      const { executionId } = await saved();
      const first = await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: TTL,
      });
      expect(
        await h.store.acquireLease(executionId, { tenantId: h.tenant, owner: 'w2', ttlMs: TTL }),
      ).toBeNull();
      const again = await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: TTL,
      });
      expect(again!.generation).toBeGreaterThan(first!.generation);
    });

    it('renew extends only the holder with its generation', async () => {
      const { executionId } = await saved();
      const lease = (await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: 1000,
      }))!;
      const scope = { tenantId: h.tenant, ttlMs: TTL };
      expect(
        await h.store.renewLease(executionId, {
          ...scope,
          owner: 'w2',
          generation: lease.generation,
        }),
      ).toBe(false);
      expect(
        await h.store.renewLease(executionId, {
          ...scope,
          owner: 'w1',
          generation: lease.generation + 1,
        }),
      ).toBe(false);
      expect(
        await h.store.renewLease(executionId, {
          ...scope,
          owner: 'w1',
          generation: lease.generation,
        }),
      ).toBe(true);
      expect(
        (await h.store.getLease(executionId, { tenantId: h.tenant }))!.expiresAt,
      ).toBeGreaterThan(lease.expiresAt + 10_000);
    });

    it('release gives the lease up only for the holder, idempotently', async () => {
      const { executionId } = await saved();
      const lease = (await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: TTL,
      }))!;
      await h.store.releaseLease(executionId, {
        tenantId: h.tenant,
        owner: 'w2',
        generation: lease.generation,
      });
      await h.store.releaseLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        generation: lease.generation - 1,
      });
      expect(await h.store.getLease(executionId, { tenantId: h.tenant })).toEqual(lease);
      await h.store.releaseLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        generation: lease.generation,
      });
      await h.store.releaseLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        generation: lease.generation,
      });
      expect(await h.store.getLease(executionId, { tenantId: h.tenant })).toBeNull();
      expect(
        await h.store.renewLease(executionId, {
          tenantId: h.tenant,
          owner: 'w1',
          generation: lease.generation,
          ttlMs: TTL,
        }),
      ).toBe(false);
      const next = await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w2',
        ttlMs: TTL,
      });
      expect(next!.generation).toBeGreaterThan(lease.generation);
    });

    it('an expired lease is not held: it cannot be renewed and another owner takes it', async () => {
      const { executionId } = await saved();
      const lease = (await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: 50,
      }))!;
      await sleep(120);
      expect(await h.store.getLease(executionId, { tenantId: h.tenant })).toBeNull();
      expect(
        await h.store.renewLease(executionId, {
          tenantId: h.tenant,
          owner: 'w1',
          generation: lease.generation,
          ttlMs: TTL,
        }),
      ).toBe(false);
      const taken = await h.store.acquireLease(executionId, {
        tenantId: h.tenant,
        owner: 'w2',
        ttlMs: TTL,
      });
      expect(taken).toMatchObject({ owner: 'w2' });
      expect(taken!.generation).toBeGreaterThan(lease.generation);
    });

    it('the generation strictly increases with every acquisition', async () => {
      const { executionId } = await saved();
      const generations: number[] = [];
      for (const owner of ['w1', 'w1', 'w2', 'w3']) {
        const lease = (await h.store.acquireLease(executionId, {
          tenantId: h.tenant,
          owner,
          ttlMs: TTL,
        }))!;
        generations.push(lease.generation);
        await h.store.releaseLease(executionId, {
          tenantId: h.tenant,
          owner,
          generation: lease.generation,
        });
      }
      for (let i = 1; i < generations.length; i++)
        expect(generations[i]).toBeGreaterThan(generations[i - 1]!);
    });

    it('a generation is never handed out again when the execution is deleted and made anew', async () => {
      const state = await saved();
      const { executionId } = state;
      const scope = { tenantId: h.tenant };
      const fences: number[] = [];
      const recreate = async () => {
        expect(await h.store.delete(executionId, scope)).toBe(true);
        await h.store.save(state, { createOnly: true });
      };
      fences.push(
        (await h.store.acquireLease(executionId, { ...scope, owner: 'w1', ttlMs: TTL }))!
          .generation,
      );
      await recreate();
      const claimed = await claimExecution(h.store, executionId, {
        ...scope,
        owner: 'w2',
        ttlMs: TTL,
      });
      expect(claimed.kind).toBe('claimed');
      if (claimed.kind === 'claimed') fences.push(claimed.lease.generation);
      await recreate();
      const third = (await h.store.acquireLease(executionId, {
        ...scope,
        owner: 'w3',
        ttlMs: TTL,
      }))!;
      expect(new Set([...fences, third.generation]).size).toBe(3);
      // A worker of an earlier incarnation, stalled while it was deleted, is fenced out.
      for (const generation of fences)
        expect(
          await rejectionOf(
            h.store.save({ ...state, version: state.version + 1 }, { fence: { generation } }),
          ),
        ).toBeInstanceOf(FenceRejectedError);
      expectSameState(await h.store.load(executionId, scope), state);
    });

    it('leases need an execution, in the right tenant', async () => {
      const { executionId } = await saved();
      expect(
        await h.store.acquireLease('never-saved', { tenantId: h.tenant, owner: 'w1', ttlMs: TTL }),
      ).toBeNull();
      expect(
        await h.store.acquireLease(executionId, {
          tenantId: `${h.tenant}-other`,
          owner: 'w1',
          ttlMs: TTL,
        }),
      ).toBeNull();
      expect(await h.store.getLease('never-saved', { tenantId: h.tenant })).toBeNull();
      await expect(
        h.store.acquireLease(executionId, { tenantId: h.tenant, owner: 'w1', ttlMs: 0 }),
      ).rejects.toThrow(RangeError);
    });

    it('a fenced save with the current generation is written; a stale one is rejected and writes nothing', async () => {
      const state = await saved();
      const scope = { tenantId: h.tenant, ttlMs: TTL };
      const first = (await h.store.acquireLease(state.executionId, { ...scope, owner: 'w1' }))!;
      const v1 = { ...state, version: 1, status: 'running' as const };
      await h.store.save(v1, { fence: { generation: first.generation } });
      expectSameState(await h.store.load(state.executionId, { tenantId: h.tenant }), v1);

      await h.store.releaseLease(state.executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        generation: first.generation,
      });
      await h.store.acquireLease(state.executionId, { ...scope, owner: 'w2' });
      const error = await rejectionOf(
        h.store.save(
          { ...v1, version: 2, status: 'completed' },
          { fence: { generation: first.generation } },
        ),
      );
      expect(error).toBeInstanceOf(FenceRejectedError);
      expect(error.code).toBe('fence_rejected');
      expect(error.retryable).toBe(false);
      expectSameState(await h.store.load(state.executionId, { tenantId: h.tenant }), v1);
    });

    it('a fenced save of an absent execution is rejected and writes nothing', async () => {
      const state = h.state();
      const error = await rejectionOf(h.store.save(state, { fence: { generation: 1 } }));
      expect(error.code).toBe('fence_rejected');
      expect(await h.store.load(state.executionId, { tenantId: h.tenant })).toBeNull();
    });

    it('an unfenced save keeps the lease', async () => {
      const state = await saved();
      const lease = await h.store.acquireLease(state.executionId, {
        tenantId: h.tenant,
        owner: 'w1',
        ttlMs: TTL,
      });
      await h.store.save({ ...state, version: 1 });
      expect(await h.store.getLease(state.executionId, { tenantId: h.tenant })).toEqual(lease);
    });

    it('a cancel request is kept beside the state: saves do not clear it', async () => {
      const state = await saved();
      const scope = { tenantId: h.tenant };
      expect(await h.store.isCancelRequested(state.executionId, scope)).toBe(false);
      expect(await h.store.requestCancel('never-saved', scope)).toBe(false);
      expect(
        await h.store.requestCancel(state.executionId, { tenantId: `${h.tenant}-other` }),
      ).toBe(false);
      expect(await h.store.requestCancel(state.executionId, scope)).toBe(true);
      await h.store.save({ ...state, version: 1, status: 'running' });
      expect(await h.store.isCancelRequested(state.executionId, scope)).toBe(true);
      expect(
        await h.store.isCancelRequested(state.executionId, { tenantId: `${h.tenant}-other` }),
      ).toBe(false);
    });

    it('a cancel request is spent once the execution is terminal: a later retry is not cancelled', async () => {
      const state = await saved();
      const scope = { tenantId: h.tenant };
      const failed = {
        ...state,
        version: 2,
        status: 'error' as const,
        error: { code: 'node_failed', name: 'E', message: 'm', retryable: false },
      };
      // The request raced the node's failure: made against the run, landing before its end.
      await h.store.save({ ...state, version: 1, status: 'running' });
      expect(await h.store.requestCancel(state.executionId, scope)).toBe(true);
      await h.store.save(failed);
      expect(await h.store.isCancelRequested(state.executionId, scope)).toBe(false);
      // ... or landing after it: the execution exists, and nothing is marked.
      expect(await h.store.requestCancel(state.executionId, scope)).toBe(true);
      expect(await h.store.isCancelRequested(state.executionId, scope)).toBe(false);
      const claimed = await claimExecution(h.store, state.executionId, {
        ...scope,
        owner: 'w1',
        ttlMs: TTL,
      });
      expect(claimed).toMatchObject({ kind: 'claimed', cancelRequested: false });
      // The operator's retry runs again, and a request against that run is kept.
      await h.store.save({ ...failed, version: 3, status: 'running', error: null });
      expect(await h.store.requestCancel(state.executionId, scope)).toBe(true);
      expect(await h.store.isCancelRequested(state.executionId, scope)).toBe(true);
    });
  });
}
