import { describe, expect, it } from 'vitest';
import { StateSerializationError } from '../../src/errors/state-errors.js';
import { decodeState, decodeValue, encodeState, encodeValue } from '../../src/state/codec.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { summarizeCause } from '../../src/errors/flow-errors.js';

/** What a review of the codec found changed or refused untyped on its way to a store. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('the codec, after review', () => {
  it('loads a state saved with a field at the depth limit (the header holds a tag)', () => {
    const state = newExecutionState({ executionId: 'deep', status: 'completed' });
    state.result = nested(1000);
    state.context = { $GLOBAL: { when: new Date(0), deep: nested(998) } };
    const text = encodeState(state);
    expect(() => decodeState(text)).not.toThrow();
    expect(decodeState(text).result).toEqual(state.result);
  });

  it('through a store too, the summary included (an error whose details are deep)', async () => {
    const store = new MemoryExecutionStore();
    const state = newExecutionState({ executionId: 'deep-error', status: 'error' });
    state.error = {
      code: 1,
      name: 'E',
      message: 'm',
      retryable: false,
      details: { at: new Date(0), chain: nested(998) },
    };
    await store.save(state);
    expect((await store.load('deep-error'))?.error?.details).toEqual(state.error.details);
  });

  it('a toJSON never replaces the data: an array with one, an object with a hidden one', () => {
    const array = Object.assign([1, 2], { toJSON: () => 'replaced' });
    expect(decodeValue(encodeValue(array))).toEqual([1, 2]);
    const object = Object.defineProperty({ a: 1 }, 'toJSON', { value: () => 'replaced' });
    expect(decodeValue(encodeValue({ object }))).toEqual({ object: { a: 1 } });
  });

  it('a decoded Buffer owns its memory (no pool slice holding other bytes)', () => {
    decodeValue(encodeValue(Buffer.from('TOP-SECRET of another execution')));
    const buffer = decodeValue(encodeValue(Buffer.from('hi'))) as Buffer;
    expect(Buffer.isBuffer(buffer)).toBe(true);
    expect(buffer.toString()).toBe('hi');
    expect(buffer.byteOffset).toBe(0);
    expect(buffer.buffer.byteLength).toBe(2);
  });

  it('a proxy, a fake Date or Map, a detached buffer: StateSerializationError naming the path', () => {
    const detached = new ArrayBuffer(8);
    const view = new Uint8Array(detached);
    structuredClone(detached, { transfer: [detached] });
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    for (const [label, value] of [
      ['a proxy of a Date', new Proxy(new Date(), {})],
      ['a proxy of a Map', new Proxy(new Map(), {})],
      ['a revoked proxy', revocable.proxy],
      ['Object.create(Date.prototype)', Object.create(Date.prototype) as object],
      ['Object.create(Map.prototype)', Object.create(Map.prototype) as object],
      ['a view of a detached buffer', view],
    ] as const) {
      let error: unknown;
      try {
        encodeValue({ x: value });
      } catch (e) {
        error = e;
      }
      expect(error, label).toBeInstanceOf(StateSerializationError);
      expect((error as StateSerializationError).path, label).toBe('$.x');
    }
  });

  it('a $NODE that is not a plain object is refused by a store, never stored empty', async () => {
    const store = new MemoryExecutionStore();
    const state = newExecutionState({ executionId: 'map-nodes' });
    state.context = { $NODE: new Map([['a', 1]]) };
    await expect(store.save(state)).rejects.toBeInstanceOf(StateSerializationError);
    expect(await store.load('map-nodes')).toBeNull();
  });

  it("an error's NaN code is not kept, so the node's real error can still be written", () => {
    const cause = summarizeCause(Object.assign(new Error('boom'), { code: Number.NaN }));
    expect(cause).toEqual({ name: 'Error', message: 'boom' });
  });
});

describe('values too large to encode', () => {
  it('a sparse array of a billion slots is a typed refusal, not a heap crash', () => {
    const sparse: unknown[] = [];
    sparse[1e9] = 1;
    expect(() => encodeValue({ sparse })).toThrow(StateSerializationError);
  });
});
