import { describe, expect, it } from 'vitest';
import { StateSerializationError } from '../../src/errors/state-errors.js';
import type { ExecutionStore } from '../../src/store/execution-store.js';
import type { ExecutionState } from '../../src/state/execution-state.js';
import {
  expectSameState,
  rejectionOf,
  type ExecutionStoreFactory,
  useHarness,
  withNodes,
} from './store-harness.js';

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
}

const BAD_VALUES: [string, () => unknown, string][] = [
  ['a function', () => ({ client: () => 1 }), '$NODE.fetch.client'],
  ['a cycle', cyclic, '$NODE.fetch.self'],
];

async function expectNotSerializable(
  store: ExecutionStore,
  state: ExecutionState,
  path: string,
  changedNodes?: string[],
): Promise<void> {
  const error = await rejectionOf(store.save(state, changedNodes ? { changedNodes } : {}));
  expect(error).toBeInstanceOf(StateSerializationError);
  expect(error).not.toBeInstanceOf(TypeError);
  expect(error.code).toBe('state_not_serializable');
  expect(error.retryable).toBe(false);
  expect((error as StateSerializationError).path).toBe(path);
}

export function serializationCases(factory: ExecutionStoreFactory): void {
  describe('values that cannot be stored', () => {
    const h = useHarness(factory);

    for (const [what, make, path] of BAD_VALUES) {
      it(`a context holding ${what} makes save reject with StateSerializationError (retryable false, not a TypeError, path into $NODE), and nothing is written`, async () => {
        const fresh = withNodes(h.state(), { fetch: make() });
        await expectNotSerializable(h.store, fresh, path);
        expect(await h.store.load(fresh.executionId, { tenantId: h.tenant })).toBeNull();

        const good = withNodes(h.state(), { start: { ok: true } }, 1);
        await h.store.save(good);
        await expectNotSerializable(
          h.store,
          withNodes(good, { start: { ok: true }, fetch: make() }),
          path,
        );
        await expectNotSerializable(
          h.store,
          withNodes(good, { start: { ok: true }, fetch: make() }),
          path,
          ['fetch'],
        );
        expectSameState(await h.store.load(good.executionId, { tenantId: h.tenant }), good);
      });
    }

    it('a value outside $NODE is named by its context path, and nothing is written', async () => {
      const good = h.state({ version: 1 });
      await h.store.save(good);
      const error = await rejectionOf(
        h.store.save({ ...good, version: 2, context: { $INPUT: { at: Symbol('x') } } }),
      );
      expect(error.code).toBe('state_not_serializable');
      expect((error as StateSerializationError).path).toBe('$INPUT.at');
      expectSameState(await h.store.load(good.executionId, { tenantId: h.tenant }), good);
    });
  });
}
