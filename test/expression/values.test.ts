import { describe, expect, it } from 'vitest';
import { ValueTypeError } from '../../src/errors/expression-errors.js';
import {
  compareValues,
  deepEqual,
  displayForm,
  isMember,
  isTruthy,
} from '../../src/expression/values.js';

describe('isTruthy (§5.7)', () => {
  it('is false for false, null, 0, "", [] and {} only', () => {
    for (const falsy of [false, null, undefined, 0, -0, '', [], {}])
      expect(isTruthy(falsy), JSON.stringify(falsy)).toBe(false);
    for (const truthy of [
      true,
      1,
      -1,
      0.1,
      Number.NaN,
      'a',
      ' ',
      '0',
      'false',
      [0],
      [[]],
      { a: null },
    ]) {
      expect(isTruthy(truthy), JSON.stringify(truthy)).toBe(true);
    }
  });

  it('counts only own keys of an object', () => {
    expect(isTruthy(Object.create({ inherited: 1 }))).toBe(false);
  });
});

describe('deepEqual (§5.7)', () => {
  it('compares numbers by value and booleans as 1/0', () => {
    expect(deepEqual(1, 1.0)).toBe(true);
    expect(deepEqual(true, 1)).toBe(true);
    expect(deepEqual(1, true)).toBe(true);
    expect(deepEqual(false, 0)).toBe(true);
    expect(deepEqual(true, 2)).toBe(false);
    expect(deepEqual(Number.NaN, Number.NaN)).toBe(false);
    expect(deepEqual(0, -0)).toBe(true);
  });

  it('never coerces strings', () => {
    expect(deepEqual('18', 18)).toBe(false);
    expect(deepEqual('1', true)).toBe(false);
    expect(deepEqual('', 0)).toBe(false);
    expect(deepEqual('a', 'a')).toBe(true);
  });

  it('compares arrays by position and objects by key set, ignoring order', () => {
    expect(deepEqual([1, [2, { a: 3 }]], [1, [2, { a: 3 }]])).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual([1], [1, 1])).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual({ a: [true] }, { a: [1] })).toBe(true);
    expect(deepEqual([], {})).toBe(false);
  });

  it('makes null equal only null', () => {
    expect(deepEqual(null, null)).toBe(true);
    expect(deepEqual(null, undefined)).toBe(true);
    expect(deepEqual(null, 0)).toBe(false);
    expect(deepEqual(null, false)).toBe(false);
    expect(deepEqual('', null)).toBe(false);
    expect(deepEqual({}, null)).toBe(false);
  });
});

describe('compareValues (§5.7)', () => {
  it('orders numbers and booleans numerically', () => {
    expect(compareValues(1, 2)).toBeLessThan(0);
    expect(compareValues(2, 1)).toBeGreaterThan(0);
    expect(compareValues(1, 1)).toBe(0);
    expect(compareValues(true, 0.5)).toBeGreaterThan(0);
    expect(compareValues(false, true)).toBeLessThan(0);
    expect(compareValues(Infinity, Infinity)).toBe(0);
    expect(compareValues(Number.NaN, 1)).toBeNaN();
  });

  it('orders strings by code point, not UTF-16 unit', () => {
    expect(compareValues('a', 'b')).toBeLessThan(0);
    expect(compareValues('B', 'a')).toBeLessThan(0);
    expect(compareValues('ab', 'a')).toBeGreaterThan(0);
    expect(compareValues('', '')).toBe(0);
    // U+FF5E (BMP, above the surrogates) is smaller than U+1F600; UTF-16 units say the opposite.
    expect(compareValues('\uff5e', '😀')).toBeLessThan(0);
    expect(compareValues('😀', '😁')).toBeLessThan(0);
  });

  it('orders arrays lexicographically, a proper prefix being smaller', () => {
    expect(compareValues([1, 2], [1, 3])).toBeLessThan(0);
    expect(compareValues([1], [1, 0])).toBeLessThan(0);
    expect(compareValues([2], [1, 9])).toBeGreaterThan(0);
    expect(compareValues([[1, 'a']], [[1, 'b']])).toBeLessThan(0);
    // Equal elements are skipped without being ordered, as in Python.
    expect(compareValues([{ a: 1 }, 1], [{ a: 1 }, 2])).toBeLessThan(0);
    expect(compareValues([1, true], [1, 1])).toBe(0);
  });

  it('throws ValueTypeError for any other pair', () => {
    const pairs: [unknown, unknown][] = [
      ['18', 18],
      [null, 1],
      [null, null],
      [{}, {}],
      [[1], 1],
      ['a', true],
      [
        [1, 'x'],
        [1, 2],
      ],
    ];
    for (const [a, b] of pairs) {
      expect(() => compareValues(a, b), JSON.stringify([a, b])).toThrow(ValueTypeError);
    }
    try {
      compareValues('a', 1);
      expect.unreachable('it must throw');
    } catch (error) {
      expect((error as Error).name).toBe('ValueTypeError');
    }
  });
});

describe('isMember (§5.7)', () => {
  it('tests substrings of strings', () => {
    expect(isMember('ell', 'hello')).toBe(true);
    expect(isMember('', 'hello')).toBe(true);
    expect(isMember('x', 'hello')).toBe(false);
    expect(() => isMember(1, 'a1')).toThrow(ValueTypeError);
    expect(() => isMember(null, 'null')).toThrow(ValueTypeError);
  });

  it('tests deep-equal elements of arrays', () => {
    expect(isMember({ a: [1] }, [{ a: [1] }])).toBe(true);
    expect(isMember(1, [true])).toBe(true);
    expect(isMember('1', [1])).toBe(false);
    expect(isMember(null, [null])).toBe(true);
  });

  it('tests keys of objects: strings only, other scalars are absent, containers fail', () => {
    expect(isMember('a', { a: 0 })).toBe(true);
    expect(isMember('b', { a: 0 })).toBe(false);
    expect(isMember('toString', { a: 0 })).toBe(false);
    expect(isMember(1, { '1': 0 })).toBe(false);
    expect(isMember(null, { null: 0 })).toBe(false);
    expect(isMember(true, { true: 0 })).toBe(false);
    expect(() => isMember([], { a: 0 })).toThrow(ValueTypeError);
    expect(() => isMember({}, { a: 0 })).toThrow(ValueTypeError);
  });

  it('fails for containers of any other type', () => {
    for (const container of [1, true, null])
      expect(() => isMember(1, container)).toThrow(ValueTypeError);
  });
});

describe('displayForm (§5.6)', () => {
  it('formats JavaScript-style', () => {
    expect(displayForm('s')).toBe('s');
    expect(displayForm(2)).toBe('2');
    expect(displayForm(2.0)).toBe('2');
    expect(displayForm(0.5)).toBe('0.5');
    expect(displayForm(1e21)).toBe('1e+21');
    expect(displayForm(-0)).toBe('0');
    expect(displayForm(true)).toBe('true');
    expect(displayForm(false)).toBe('false');
    expect(displayForm(null)).toBe('null');
    expect(displayForm(undefined)).toBe('null');
    expect(displayForm({ b: 1, a: [1, 'x', null] })).toBe('{"b":1,"a":[1,"x",null]}');
    expect(displayForm([])).toBe('[]');
  });
});
