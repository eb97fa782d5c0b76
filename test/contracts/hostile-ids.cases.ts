import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkpointContext,
  expectSameState,
  type ExecutionStoreFactory,
  useHarness,
} from './store-harness.js';

/** Ids that name Object.prototype members: a store must keep each as an ordinary key. */
export const HOSTILE_IDS = [
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'prototype',
  '__defineGetter__',
] as const;

function keyed(ids: readonly string[], value: (id: string, i: number) => unknown) {
  const out: Record<string, unknown> = {};
  ids.forEach((id, i) =>
    Object.defineProperty(out, id, {
      value: value(id, i),
      enumerable: true,
      writable: true,
      configurable: true,
    }),
  );
  return out;
}

export function hostileIdCases(factory: ExecutionStoreFactory): void {
  describe('node ids that name Object.prototype members', () => {
    const h = useHarness(factory);

    it('round-trip in $NODE, $VISITS, attempts and timings, on a full and an incremental save', async () => {
      const ids = [...HOSTILE_IDS];
      const context = checkpointContext(
        keyed(ids, (id, i) => ({ id, i })),
        {
          $VISITS: keyed(ids, (_, i) => i + 1),
        },
      );
      const state = h.state({
        context,
        attempts: keyed(ids, (_, i) => i + 1) as Record<string, number>,
        timings: keyed(ids, () => ({
          startedAt: '2030-01-01T00:00:00.000Z',
          endedAt: null,
          attempts: 1,
          durationMs: null,
        })) as never,
      });
      await h.store.save(state);
      const loaded = await h.store.load(state.executionId, { tenantId: h.tenant });
      expectSameState(loaded, state);
      const nodes = loaded!.context.$NODE as object;
      expect(Object.getPrototypeOf(nodes)).not.toEqual({ id: '__proto__', i: 0 });
      expect(Object.hasOwn(nodes, '__proto__')).toBe(true);
      expect(Object.hasOwn(loaded!.attempts, '__proto__')).toBe(true);

      const updated = {
        ...loaded!,
        version: loaded!.version + 1,
        context: { ...loaded!.context, $NODE: { ...nodes, constructor: 'changed' } },
      };
      await h.store.save(updated, { changedNodes: ['constructor'] });
      const again = await h.store.load(state.executionId, { tenantId: h.tenant });
      expect((again!.context.$NODE as Record<string, unknown>).constructor).toBe('changed');
      expect(Object.hasOwn(again!.context.$NODE as object, '__proto__')).toBe(true);
    });

    it('any mix of prototype-member ids and ordinary ids round-trips (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(
            fc.oneof(fc.constantFrom(...HOSTILE_IDS), fc.string({ minLength: 1, maxLength: 6 })),
            {
              minLength: 1,
              maxLength: 8,
            },
          ),
          async (ids) => {
            const state = h.state({
              context: checkpointContext(
                keyed(ids, (id) => id),
                { $VISITS: keyed(ids, () => 1) },
              ),
              attempts: keyed(ids, () => 1) as Record<string, number>,
            });
            await h.store.save(state);
            expectSameState(await h.store.load(state.executionId, { tenantId: h.tenant }), state);
          },
        ),
        { numRuns: 15 },
      );
    });
  });
}
