import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import { call, evalSync } from './make-scope.js';

const fails = (name: string, args: unknown[], pattern?: RegExp) => {
  expect(() => call(name, ...args), `${name}(${JSON.stringify(args)})`).toThrow(FunctionCallError);
  if (pattern) expect(() => call(name, ...args)).toThrow(pattern);
};

describe('arity', () => {
  it('rejects wrong argument counts', () => {
    const arities: Record<string, [number, number]> = {
      keys: [1, 1],
      getDictKeys: [1, 1],
      values: [1, 1],
      getDictValues: [1, 1],
      items: [1, 1],
      get: [2, 3],
      getDictValue: [2, 3],
      set: [3, 3],
      setDictValue: [3, 3],
      delete: [2, 2],
      delDictValue: [2, 2],
      clear: [1, 1],
      clearDict: [1, 1],
    };
    for (const [name, [min, max]] of Object.entries(arities)) {
      const registered = defaultFunctions.get(name);
      expect([registered?.minArgs, registered?.maxArgs], name).toEqual([min, max]);
      fails(
        name,
        Array.from({ length: min - 1 }, () => ({})),
      );
      fails(
        name,
        Array.from({ length: max + 1 }, () => ({})),
      );
    }
  });
});

describe('reading', () => {
  const o = { b: 1, a: [2], c: null };
  it('keys / values / items return arrays in key order', () => {
    expect(call('keys', o)).toEqual(['b', 'a', 'c']);
    expect(call('getDictKeys', o)).toEqual(['b', 'a', 'c']);
    expect(call('values', o)).toEqual([1, [2], null]);
    expect(call('getDictValues', o)).toEqual([1, [2], null]);
    expect(call('items', o)).toEqual([
      ['b', 1],
      ['a', [2]],
      ['c', null],
    ]);
    expect(call('keys', {})).toEqual([]);
    for (const name of ['keys', 'values', 'items', 'getDictKeys', 'getDictValues'])
      fails(name, [[1]], /must be an object/);
  });

  it('get / getDictValue return o[k], else the default (null)', () => {
    expect(call('get', o, 'b')).toBe(1);
    expect(call('get', o, 'nope')).toBe(null);
    expect(call('get', o, 'nope', 2)).toBe(2);
    expect(call('getDictValue', o, 'c', 2)).toBe(null);
    expect(call('get', o, 1, 'd')).toBe('d');
    expect(call('get', o, null, 'd')).toBe('d');
    expect(evalSync("$F.getDictValue($INPUT, 'b',)", { $INPUT: o })).toBe(1);
    fails('get', [[1], 0], /must be an object/);
    fails('get', [o, ['b']], /cannot be a key/);
  });
});

describe('mutating', () => {
  it('set / setDictValue write in place and return null', () => {
    const context = { $INPUT: { o: { a: 1 } as Record<string, unknown> } };
    expect(evalSync("$F.set($INPUT.o, 'b', 2)", context)).toBe(null);
    expect(
      evalSync("$F.setDictValue($INPUT.o, 'a', $F.append($INPUT.none, 1))", {
        $INPUT: { ...context.$INPUT, none: [] },
      }),
    ).toBe(null);
    expect(context.$INPUT.o).toEqual({ a: [1], b: 2 });
    fails('set', [{}, 1, 2], /argument 2 must be a string/);
    fails('set', [[], 'a', 2]);
  });

  it('delete / delDictValue remove and return o[k]; absent is an error', () => {
    const context = { $INPUT: { o: { a: 1, b: 2 } as Record<string, unknown> } };
    expect(evalSync("$F.delete($INPUT.o, 'a')", context)).toBe(1);
    expect(evalSync("$F.delDictValue($INPUT.o, 'b')", context)).toBe(2);
    expect(context.$INPUT.o).toEqual({});
    fails('delete', [{}, 'a'], /not present/);
    fails('delete', [[1], 0]);
  });

  it('clear / clearDict empty an object or an array in place and return null', () => {
    const context = { $INPUT: { o: { a: 1 }, xs: [1, 2] } };
    expect(evalSync('$F.clear($INPUT.o)', context)).toBe(null);
    expect(evalSync('$F.clearDict($INPUT.xs)', context)).toBe(null);
    expect(context.$INPUT).toEqual({ o: {}, xs: [] });
    fails('clear', ['abc']);
  });

  it('are registered with side effects, the readers without', () => {
    for (const name of ['set', 'setDictValue', 'delete', 'delDictValue', 'clear', 'clearDict']) {
      expect(defaultFunctions.get(name)?.sideEffects, name).toBe(true);
    }
    for (const name of [
      'keys',
      'values',
      'items',
      'get',
      'getDictValue',
      'getDictKeys',
      'getDictValues',
    ]) {
      expect(defaultFunctions.get(name)?.sideEffects, name).toBe(false);
    }
  });
});
