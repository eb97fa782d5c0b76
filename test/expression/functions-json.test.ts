import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import { call, makeScope } from './make-scope.js';

describe('json_loads', () => {
  it('parses JSON text', () => {
    expect(call('json_loads', '{"a": 1, "b": [true, null]}')).toEqual({ a: 1, b: [true, null] });
    expect(call('json_loads', ' "x" ')).toBe('x');
    expect(call('json_loads', '1.5e2')).toBe(150);
  });

  it('rejects invalid JSON, NaN and Infinity, out-of-range numbers and non-strings', () => {
    for (const text of [
      '{a: 1}',
      '',
      'NaN',
      'Infinity',
      '-Infinity',
      '[1, NaN]',
      '1e400',
      "{'a': 1}",
      '[1,]',
    ]) {
      expect(() => call('json_loads', text), text).toThrow(FunctionCallError);
    }
    expect(() => call('json_loads', '{')).toThrow(/invalid JSON/);
    expect(() => call('json_loads', { a: 1 })).toThrow(/must be a string/);
    expect(() => call('json_loads')).toThrow(/takes 1 argument/);
  });
});

describe('json_dumps (the original layout)', () => {
  it('puts ", " between items and ": " after keys, keeping key order', () => {
    expect(call('json_dumps', { a: 1, b: 'x' })).toBe('{"a": 1, "b": "x"}');
    expect(call('json_dumps', [1, 2])).toBe('[1, 2]');
    expect(call('json_dumps', { z: [1, { y: null, x: true }], a: false })).toBe(
      '{"z": [1, {"y": null, "x": true}], "a": false}',
    );
    expect(call('json_dumps', [])).toBe('[]');
    expect(call('json_dumps', {})).toBe('{}');
    expect(call('json_dumps', null)).toBe('null');
    expect(call('json_dumps', 'x')).toBe('"x"');
    expect(call('json_dumps', 2.5)).toBe('2.5');
  });

  it('escapes every character outside printable ASCII as \\uXXXX', () => {
    expect(call('json_dumps', 'é')).toBe('"\\u00e9"');
    expect(call('json_dumps', '中文')).toBe('"\\u4e2d\\u6587"');
    expect(call('json_dumps', '😀')).toBe('"\\ud83d\\ude00"');
    expect(call('json_dumps', { clé: 'v' })).toBe('{"cl\\u00e9": "v"}');
    expect(call('json_dumps', 'a"b\\c\n\r\t\b\f\u0001\u007f~')).toBe(
      '"a\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u007f~"',
    );
    expect(call('json_dumps', '/')).toBe('"/"');
  });

  it('spells non-finite numbers as Python does', () => {
    const functions = defaultFunctions
      .copy()
      .register('inf', () => [Infinity, -Infinity, Number.NaN]);
    expect(evaluateValue('$F.json_dumps($F.inf())', makeScope({}, { functions }))).toBe(
      '[Infinity, -Infinity, NaN]',
    );
  });

  it('fails on values JSON cannot hold and on cycles', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const functions = defaultFunctions
      .copy()
      .register('cyclic', () => cyclic)
      .register('date', () => new Date(0))
      .register('fn', () => [() => 1]);
    const scope = makeScope({}, { functions });
    expect(() => evaluateValue('$F.json_dumps($F.cyclic())', scope)).toThrow(/circular/);
    expect(() => evaluateValue('$F.json_dumps($F.date())', scope)).toThrow(/class Date/);
    expect(() => evaluateValue('$F.json_dumps($F.fn())', scope)).toThrow(FunctionCallError);
    expect(() => call('json_dumps')).toThrow(/takes 1 argument/);
  });

  it('round-trips through json_loads', () => {
    const value = { a: [1, 'é', { b: null }], c: 'x"y' };
    expect(call('json_loads', call('json_dumps', value))).toEqual(value);
  });
});
