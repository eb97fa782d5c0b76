import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import {
  expectSameState,
  rejectionOf,
  type ExecutionStoreFactory,
  type OutageHook,
  useHarness,
} from './store-harness.js';

const CONNECT_TIMEOUT_MS = 1000;

export function outageCases(factory: ExecutionStoreFactory, outage: OutageHook): void {
  describe('outage', () => {
    const h = useHarness(factory);

    it('a transient failure rejects with StoreUnavailableError (retryable, cause kept) within connectTimeoutMs, writes nothing, and the same store works again', async () => {
      const store = await h.open({ connectTimeoutMs: CONNECT_TIMEOUT_MS });
      const v1 = h.state({ version: 1 });
      await store.save(v1);
      const restore = await outage(store);
      let error;
      let elapsedMs = Infinity;
      const started = Date.now();
      try {
        error = await rejectionOf(store.save({ ...v1, version: 2, status: 'running' }));
        elapsedMs = Date.now() - started;
      } finally {
        await restore();
      }
      expect(elapsedMs).toBeLessThan(CONNECT_TIMEOUT_MS + 2000);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error.code).toBe('store_unavailable');
      expect(error.retryable).toBe(true);
      expect(error.cause).toBeDefined();
      expectSameState(await store.load(v1.executionId, { tenantId: h.tenant }), v1);
      const v2 = { ...v1, version: 2, status: 'running' as const };
      await store.save(v2);
      expectSameState(await store.load(v1.executionId, { tenantId: h.tenant }), v2);
    });
  });
}
