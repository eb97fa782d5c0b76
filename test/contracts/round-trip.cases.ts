import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../src/state/execution-state.js';
import { codableContext, codableValue } from '../state/arbitraries.js';
import { findDifference } from '../state/strict-difference.js';
import {
  checkpointContext,
  expectSameState,
  type ExecutionStoreFactory,
  useHarness,
} from './store-harness.js';

/** Every field of the state holds a value that is not its default. */
function everyField(base: ExecutionState): ExecutionState {
  return {
    ...base,
    flowId: 'orders',
    flowVersion: '3',
    flowHash: 'a'.repeat(64),
    status: 'suspended',
    context: checkpointContext({ fetch: { status: 200, body: [1, 2] }, approve: null }),
    waiting: {
      nodeId: 'approve',
      eventType: 'approval',
      filter: { role: 'manager' },
      dueAt: '2031-01-01T00:00:00.000Z',
      subscriptionId: 'sub-1',
    },
    result: { total: 12n, when: new Date('2030-05-01T10:00:00.000Z') },
    error: {
      code: 'node_error',
      name: 'FlowError',
      message: 'boom',
      retryable: false,
      node: 'fetch',
      details: { attempt: 2 },
    },
    attempts: { fetch: 2, approve: 1 },
    timings: {
      fetch: {
        startedAt: '2030-01-01T00:00:00.000Z',
        endedAt: '2030-01-01T00:00:01.500Z',
        attempts: 2,
        durationMs: 1500,
      },
    },
    inbox: [
      {
        eventId: 'ev-1',
        type: 'approval',
        data: { ok: true, at: new Date(0) },
        receivedAt: '2030-01-01T00:00:02.000Z',
      },
    ],
    appliedEventIds: ['ev-0'],
    manualRetries: 1,
    dedupKey: 'order-17',
    parentExecutionId: 'parent-1',
    createdAt: '2030-01-01T00:00:00Z',
    updatedAt: '2030-01-01T00:00:02.123456Z',
    endedAt: null,
    version: 7,
  };
}

export function roundTripCases(factory: ExecutionStoreFactory, propertyRuns: number): void {
  describe('round trip', () => {
    const h = useHarness(factory);

    it('round-trips every state field', async () => {
      const state = everyField(h.state());
      await h.store.save(state);
      expectSameState(await h.store.load(state.executionId, { tenantId: h.tenant }), state);
    });

    it('a context {"$NODE": {"n1": {"result": new Set([1, 2])}}, "dt": new Date()} saves and loads back deep-equal, types intact', async () => {
      const context = { $NODE: { n1: { result: new Set([1, 2]) } }, dt: new Date() };
      const state = h.state({ context });
      await h.store.save(state);
      const loaded = await h.store.load(state.executionId, { tenantId: h.tenant });
      expect(loaded?.context).toEqual(context);
      const nodes = loaded?.context.$NODE as { n1: { result: unknown } };
      expect(nodes.n1.result).toBeInstanceOf(Set);
      expect(loaded?.context.dt).toBeInstanceOf(Date);
      expectSameState(loaded, state);
    });

    it('a string holding U+0000 and one holding a lone surrogate round-trip, in values, keys and node ids', async () => {
      const nasty = {
        nul: 'a\u0000b',
        lone: 'x\ud800y',
        low: '\udc00',
        ['k\u0000']: 1,
        ['\udfff']: 2,
      };
      const state = h.state({
        context: checkpointContext(
          { fetch: nasty, ['node\u0000\ud800']: 'nul id', ['back\\slash']: 1 },
          { $INPUT: nasty },
        ),
      });
      await h.store.save(state);
      expectSameState(await h.store.load(state.executionId, { tenantId: h.tenant }), state);
    });

    it('keeps the key order of objects and of $NODE', async () => {
      const nodes = { zeta: 1, alpha: { b: 1, a: 2, '~t': 3 }, mid: [{ y: 1, x: 2 }] };
      const state = h.state({ context: checkpointContext(nodes) });
      await h.store.save(state);
      const loaded = await h.store.load(state.executionId, { tenantId: h.tenant });
      expect(Object.keys(loaded!.context.$NODE as object)).toEqual(['zeta', 'alpha', 'mid']);
      expectSameState(loaded, state);
    });

    it('never shares references with the saved or the loaded state', async () => {
      const result = { items: [1, 2] };
      const state = h.state({ context: checkpointContext({ fetch: result }) });
      await h.store.save(state);
      result.items.push(3);
      const first = await h.store.load(state.executionId, { tenantId: h.tenant });
      (first!.context.$NODE as Record<string, { items: number[] }>).fetch!.items.push(4);
      const second = await h.store.load(state.executionId, { tenantId: h.tenant });
      expect((second!.context.$NODE as Record<string, unknown>).fetch).toEqual({ items: [1, 2] });
    });

    it('load returns null for an unknown id, another tenant, and an id no store can hold', async () => {
      const state = h.state();
      await h.store.save(state);
      expect(await h.store.load('never-saved', { tenantId: h.tenant })).toBeNull();
      expect(await h.store.load(state.executionId, { tenantId: `${h.tenant}-other` })).toBeNull();
      expect(await h.store.load(state.executionId)).toBeNull();
      expect(await h.store.load('bad\u0000id', { tenantId: h.tenant })).toBeNull();
      expect(
        await h.store.load(state.executionId.replace(/.$/, '\ud800'), { tenantId: h.tenant }),
      ).toBeNull();
    });

    it('uses the default tenant when none is given', async () => {
      const state = h.state({ tenantId: 'default' });
      await h.store.save(state);
      expectSameState(await h.store.load(state.executionId), state);
      expect(await h.store.delete(state.executionId)).toBe(true);
    });

    it('property: random values of every supported type round-trip, type for type', async () => {
      const states = fc.record({
        context: codableContext,
        result: codableValue,
        data: codableValue,
      });
      await fc.assert(
        fc.asyncProperty(states, async ({ context, result, data }) => {
          const state = h.state({
            context,
            result,
            inbox: [{ eventId: 'e', type: 't', data, receivedAt: '2030-01-01T00:00:00.000Z' }],
          });
          await h.store.save(state);
          const loaded = await h.store.load(state.executionId, { tenantId: h.tenant });
          expect(findDifference(loaded, state)).toBeUndefined();
        }),
        { numRuns: propertyRuns },
      );
    });
  });
}
