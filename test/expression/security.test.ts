import { describe, expect, it } from 'vitest';
import { ExpressionError, FunctionCallError } from '../../src/errors/expression-errors.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import { call, evalSync, makeScope } from './make-scope.js';

const clean = (error: unknown) =>
  error instanceof ExpressionError || error instanceof FunctionCallError;

function expectNullOrCleanError(expression: string, context: Record<string, unknown>): void {
  let result: unknown;
  try {
    result = evaluateValue(expression, makeScope(context));
  } catch (error) {
    expect(clean(error), `${expression} threw ${String(error)}`).toBe(true);
    return;
  }
  expect(result, expression).toBe(null);
}

describe('an expression reaches only the context and the registered functions', () => {
  const context = () => ({ $INPUT: { x: { y: 1 }, s: 'str', xs: [1] } });

  it('reads no inherited property of the context objects', () => {
    for (const expression of [
      '$INPUT.constructor',
      '$INPUT.__proto__',
      '$INPUT.__proto__.polluted',
      '$INPUT.x.constructor.prototype',
      '$INPUT.x.constructor.name',
      '$INPUT.toString',
      '$INPUT.hasOwnProperty',
      '$INPUT.s.constructor',
      '$INPUT.xs.constructor',
      '$INPUT.xs.length',
      '$INPUT.xs.map',
    ]) {
      expect(evalSync(expression, context()), expression).toBe(null);
    }
  });

  it('has no inherited roots', () => {
    for (const expression of ['$constructor', '$__proto__', '$toString', '$hasOwnProperty']) {
      expect(() => evalSync(expression, context()), expression).toThrow(ExpressionError);
    }
  });

  it('finds no function that is not registered', () => {
    for (const expression of [
      '$F.constructor(1)',
      '$F.__proto__()',
      '$F.toString()',
      '$F.hasOwnProperty("add")',
      '$F.valueOf()',
      '$F.prototype()',
      '$F.eval("1")',
      '$F.Function("return 1")',
      '$F.require("fs")',
      '$F.process()',
    ]) {
      expectNullOrCleanError(expression, context());
      expect(() => evaluateValue(expression, makeScope(context())), expression).toThrow();
    }
  });

  it('reports unknown functions with suggestions, never as "undefined"', () => {
    expect(() => evalSync('$F.toString()')).toThrow(FunctionCallError);
    expect(() => evalSync('$F.constructor(1)')).toThrow(/unknown function \$F\.constructor/);
  });

  it('does not pollute prototypes through the mutating functions', () => {
    const input = { o: {} as Record<string, unknown> };
    evalSync("$F.set($INPUT.o, '__proto__', $INPUT.payload)", {
      $INPUT: { ...input, payload: { polluted: 'yes' } },
    });
    expect(Object.hasOwn(input.o, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(input.o)).toBe(Object.prototype);
    expect(call('get', {}, '__proto__')).toBe(null);
    expect(call('get', {}, 'constructor')).toBe(null);
    expect(() => call('delete', {}, 'toString')).toThrow(FunctionCallError);
    expect(call('json_loads', '{"__proto__": {"polluted": 1}}')).toEqual(
      JSON.parse('{"__proto__": {"polluted": 1}}'),
    );
    // Sorting by an inherited key finds null on both sides (incomparable), not Object.prototype.
    expect(() => evalSync("$F.sort($INPUT, '__proto__')", { $INPUT: [{}, {}] })).toThrow(
      /null and null/,
    );
  });

  it('leaves globals untouched after all of the above', () => {
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBe(undefined);
    expect(({} as Record<string, unknown>).polluted).toBe(undefined);
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Array.prototype).not.toHaveProperty('polluted');
    expect(defaultFunctions.has('constructor')).toBe(false);
    expect(defaultFunctions.get('toString')).toBe(undefined);
  });

  it('passes custom functions only their arguments', () => {
    const functions = defaultFunctions.copy();
    const seen: { self: unknown; args: unknown[] } = { self: 'not called', args: [] };
    functions.register('spy', function (this: unknown, ...args: unknown[]) {
      seen.args = args;
      return [this];
    });
    seen.self = evaluateValue(
      '$F.spy($INPUT.a, 2)',
      makeScope({ $INPUT: { a: 1 } }, { functions }),
    );
    expect(seen.self).toEqual([undefined]);
    expect(seen.args).toEqual([1, 2]);
  });
});
