import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { call } from './make-scope.js';

const fails = (name: string, args: unknown[], pattern?: RegExp) => {
  expect(() => call(name, ...args), `${name}(${JSON.stringify(args)})`).toThrow(FunctionCallError);
  if (pattern) expect(() => call(name, ...args)).toThrow(pattern);
};

describe('arity', () => {
  it('rejects a wrong argument count for every fixed-arity math function', () => {
    for (const name of ['add', 'sub', 'mul', 'div', 'mod', 'pow']) {
      fails(name, [1], /takes 2 arguments, got 1/);
      fails(name, [1, 2, 3]);
    }
    for (const name of ['abs', 'ceil', 'floor', 'trunc', 'sqrt']) {
      fails(name, [], /takes 1 argument, got 0/);
      fails(name, [1, 2]);
    }
    fails('round', [], /takes 1 to 2 arguments, got 0/);
    fails('round', [1, 2, 3]);
  });

  it('names the function in the error', () => {
    try {
      call('add', 1);
      expect.unreachable('it must throw');
    } catch (error) {
      expect((error as FunctionCallError).functionName).toBe('add');
      expect((error as FunctionCallError).name).toBe('FunctionCallError');
    }
  });
});

describe('add / sub / mul / div', () => {
  it('adds numbers, concatenates strings and arrays (as a copy)', () => {
    expect(call('add', 1, 2)).toBe(3);
    expect(call('add', 1.5, 2)).toBe(3.5);
    expect(call('add', true, 1)).toBe(2);
    expect(call('add', 'a', 'b')).toBe('ab');
    const xs = [1];
    expect(call('add', xs, [2])).toEqual([1, 2]);
    fails('add', ['1', 1], /cannot add string and number/);
    fails('add', [[1], 1]);
    fails('add', [{}, {}]);
    fails('add', [null, 1]);
  });

  it('subtracts numbers only', () => {
    expect(call('sub', 3, 2)).toBe(1);
    expect(call('sub', true, true)).toBe(0);
    fails('sub', ['3', 1], /argument 1 must be a number, got string/);
    fails('sub', [[1], [1]]);
  });

  it('multiplies numbers and repeats strings and arrays by an integer', () => {
    expect(call('mul', 2, 3)).toBe(6);
    expect(call('mul', 'ab', 3)).toBe('ababab');
    expect(call('mul', 2, 'ab')).toBe('abab');
    expect(call('mul', [1, 2], 2)).toEqual([1, 2, 1, 2]);
    expect(call('mul', 'ab', 0)).toBe('');
    expect(call('mul', 'ab', -3)).toBe('');
    expect(call('mul', [1], -1)).toEqual([]);
    expect(call('mul', 'ab', true)).toBe('ab');
    expect(
      (
        call(
          'mul',
          Array.from({ length: 200_000 }, () => 1),
          2,
        ) as unknown[]
      ).length,
    ).toBe(400_000);
    fails('mul', ['ab', 1.5]);
    fails('mul', ['a', 'b']);
    fails('mul', [{}, 2]);
    fails('mul', ['x', 1e9], /exceed/);
  });

  it('divides truly and refuses zero', () => {
    expect(call('div', 7, 2)).toBe(3.5);
    expect(call('div', 6, 3)).toBe(2);
    expect(call('div', -1, 4)).toBe(-0.25);
    fails('div', [1, 0], /division by zero/);
    fails('div', [1, -0]);
    fails('div', [1, false]);
    fails('div', ['6', 3]);
  });
});

describe('mod (floored, sign of the divisor)', () => {
  it('matches Python %', () => {
    expect(call('mod', -7, 3)).toBe(2);
    expect(call('mod', 7, -3)).toBe(-2);
    expect(call('mod', -7, -3)).toBe(-1);
    expect(call('mod', 17, 5)).toBe(2);
    expect(call('mod', 7.5, 2)).toBe(1.5);
    expect(call('mod', -7.5, 2)).toBe(0.5);
    expect(call('mod', 6, 3)).toBe(0);
    expect(Object.is(call('mod', 6, -3), -0)).toBe(true);
    expect(call('mod', 5, Infinity)).toBe(5);
    fails('mod', [1, 0], /modulo by zero/);
  });
});

describe('pow', () => {
  it('computes a ** b', () => {
    expect(call('pow', 2, 10)).toBe(1024);
    expect(call('pow', 2, -1)).toBe(0.5);
    expect(call('pow', 0, 0)).toBe(1);
    expect(call('pow', 4, 0.5)).toBe(2);
    expect(call('pow', -8, 2)).toBe(64);
    expect(call('pow', 1, 1e9 + 0.5)).toBe(1);
    expect(call('pow', 2, 1000)).toBe(2 ** 1000);
    expect(call('pow', 2.5, 2)).toBe(6.25);
  });

  it('caps integer exponents, refuses 0 ** negative and non-real or overflowing results', () => {
    fails('pow', [9, 10001], /too large/);
    fails('pow', [9, -10001]);
    fails('pow', [0, -1], /negative power/);
    fails('pow', [-8, 1 / 3], /not a real number/);
    fails('pow', [10, 400], /too large/);
    fails('pow', [2, 10000], /too large/);
    fails('pow', ['2', 2]);
  });
});

describe('abs / ceil / floor / trunc / sqrt', () => {
  it('behave as usual and give integers', () => {
    expect(call('abs', -5)).toBe(5);
    expect(call('abs', -2.5)).toBe(2.5);
    expect(call('abs', true)).toBe(1);
    expect(call('ceil', 1.2)).toBe(2);
    expect(Object.is(call('ceil', -0.5), 0)).toBe(true);
    expect(call('floor', -1.2)).toBe(-2);
    expect(call('trunc', -1.7)).toBe(-1);
    expect(Object.is(call('trunc', -0.7), 0)).toBe(true);
    expect(call('sqrt', 9)).toBe(3);
    expect(call('sqrt', 2)).toBe(Math.SQRT2);
  });

  it('refuse non-numbers, non-finite integers and negative square roots', () => {
    for (const name of ['abs', 'ceil', 'floor', 'trunc', 'sqrt']) fails(name, ['1']);
    fails('ceil', [Infinity]);
    fails('floor', [-Infinity]);
    fails('sqrt', [-1], /negative/);
  });
});

describe('round (half to even on the exact binary value)', () => {
  it('rounds to an integer without digits', () => {
    expect(call('round', 2.5)).toBe(2);
    expect(call('round', 3.5)).toBe(4);
    expect(call('round', -2.5)).toBe(-2);
    expect(call('round', -3.5)).toBe(-4);
    expect(call('round', 0.5)).toBe(0);
    expect(call('round', 1.5)).toBe(2);
    expect(call('round', 2.6)).toBe(3);
    expect(Object.is(call('round', -0.4), 0)).toBe(true);
    expect(call('round', 2 ** 53 + 2)).toBe(2 ** 53 + 2);
    expect(call('round', 7, null)).toBe(7);
    expect(call('round', true)).toBe(1);
  });

  it('rounds to n digits on the exact value, like Python', () => {
    expect(call('round', 2.675, 2)).toBe(2.67); // 2.675 is 2.67499999…
    expect(call('round', 1.005, 2)).toBe(1); // 1.00499999…
    expect(call('round', 0.125, 2)).toBe(0.12); // exact tie → even
    expect(call('round', 0.375, 2)).toBe(0.38);
    expect(call('round', 2.5, 0)).toBe(2);
    expect(call('round', 1.25, 1)).toBe(1.2);
    expect(call('round', 1.35, 1)).toBe(1.4); // 1.350000000000000088…
    expect(call('round', 0.1 + 0.2, 10)).toBe(0.3);
    expect(call('round', 123.456, 5)).toBe(123.456);
    expect(call('round', 5e-324, 400)).toBe(5e-324);
    expect(Object.is(call('round', -0.4, 0), -0)).toBe(true);
  });

  it('accepts negative digits', () => {
    expect(call('round', 1234, -2)).toBe(1200);
    expect(call('round', 1250, -2)).toBe(1200);
    expect(call('round', 1350, -2)).toBe(1400);
    expect(call('round', 15, -1)).toBe(20);
    expect(call('round', 25, -1)).toBe(20);
    expect(call('round', 5, -1)).toBe(0);
    expect(call('round', 1.7e308, -400)).toBe(0);
  });

  it('refuses bad digits, non-numbers, infinities and overflow', () => {
    fails('round', [1, 1.5], /argument 2 must be an integer/);
    fails('round', [1, '2']);
    fails('round', ['1']);
    fails('round', [Infinity]);
    fails('round', [1.7e308, -308], /too large/);
    expect(call('round', Infinity, 2)).toBe(Infinity);
  });
});
