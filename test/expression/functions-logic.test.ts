import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { call, evalSync } from './make-scope.js';

const fails = (name: string, args: unknown[], pattern?: RegExp) => {
  expect(() => call(name, ...args), `${name}(${JSON.stringify(args)})`).toThrow(FunctionCallError);
  if (pattern) expect(() => call(name, ...args)).toThrow(pattern);
};

describe('arity', () => {
  it('rejects wrong argument counts', () => {
    for (const name of [
      'and',
      'eq',
      'ne',
      'gt',
      'gte',
      'lt',
      'lte',
      'in',
      'notIn',
      'contains',
      'notContains',
    ]) {
      fails(name, [1], /takes 2 arguments, got 1/);
      fails(name, [1, 2, 3]);
    }
    fails('not', []);
    fails('not', [1, 2]);
    fails('ifelse', [1, 2]);
    fails('ifelse', [1, 2, 3, 4]);
  });
});

describe('and / or / not', () => {
  it('return operands, not booleans', () => {
    expect(call('and', 'a', 'b')).toBe('b');
    expect(call('and', 0, 'b')).toBe(0);
    expect(call('and', [], 'b')).toEqual([]);
    expect(call('or', '', 0, '3')).toBe('3');
    expect(call('or', '', 0)).toBe(false);
    expect(call('or')).toBe(false);
    expect(call('or', null, { a: 1 })).toEqual({ a: 1 });
    expect(call('not', 0)).toBe(true);
    expect(call('not', {})).toBe(true);
    expect(call('not', 'x')).toBe(false);
  });
});

describe('comparisons', () => {
  it('eq / ne use deep equality and never fail', () => {
    expect(call('eq', 5, 5)).toBe(true);
    expect(call('eq', { a: [1] }, { a: [true] })).toBe(true);
    expect(call('eq', '18', 18)).toBe(false);
    expect(call('ne', '18', 18)).toBe(true);
    expect(call('eq', null, null)).toBe(true);
    expect(call('ne', null, 0)).toBe(true);
  });

  it('gt / gte / lt / lte order values and fail on incomparable ones (null included)', () => {
    expect(call('gt', 5, 3)).toBe(true);
    expect(call('gte', 5, 5)).toBe(true);
    expect(call('lt', 'a', 'b')).toBe(true);
    expect(call('lte', [1, 2], [1, 2])).toBe(true);
    expect(call('gt', true, 0)).toBe(true);
    fails('gt', ['18', 18], /cannot order string and number/);
    fails('gte', [null, 1]);
    fails('lt', [{}, {}]);
    fails('lte', [null, null]);
  });

  it('in / notIn test a ∈ b, contains / notContains test b ∈ a', () => {
    expect(call('in', 'b', ['a', 'b'])).toBe(true);
    expect(call('notIn', 'c', ['a', 'b'])).toBe(true);
    expect(call('in', 'ell', 'hello')).toBe(true);
    expect(call('contains', 'hello', 'ell')).toBe(true);
    expect(call('notContains', ['a'], 'b')).toBe(true);
    expect(call('contains', { k: 1 }, 'k')).toBe(true);
    fails('in', [1, 'a1']);
    fails('contains', [5, 1]);
    fails('in', [[1], { a: 1 }]);
  });

  it('ifelse picks an already evaluated operand', () => {
    expect(call('ifelse', true, 'yes', 'no')).toBe('yes');
    expect(call('ifelse', [], 'yes', 'no')).toBe('no');
    expect(evalSync("$F.ifelse(False, 'yes', 'no')")).toBe('no');
    // Both branches are evaluated: an error in the unused one still raises.
    expect(() => evalSync("$F.ifelse(true, 'yes', $F.div(1, 0))")).toThrow(FunctionCallError);
  });
});
