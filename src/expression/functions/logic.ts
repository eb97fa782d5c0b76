import { ValueTypeError } from '../../errors/expression-errors.js';
import type { FunctionRegistry } from '../function-registry.js';
import { compareValues, deepEqual, isMember, isTruthy } from '../values.js';
import { deepArgumentsCost } from '../meter.js';
import { callError } from './arguments.js';
import type { BuiltinSpec } from './define-builtins.js';
import { defineBuiltins } from './define-builtins.js';

/** Runs a §5.7 test, turning its type error into this function's error. */
function guarded<T>(fn: string, test: () => T): T {
  try {
    return test();
  } catch (error) {
    if (error instanceof ValueTypeError) throw callError(fn, error.message, error);
    throw error;
  }
}

function binary(
  name: string,
  description: string,
  test: (a: unknown, b: unknown) => boolean,
): BuiltinSpec {
  // Equality, order and membership walk both values whole: charged from their deep size.
  return {
    fn: (a, b) => guarded(name, () => test(a, b)),
    minArgs: 2,
    maxArgs: 2,
    description,
    cost: deepArgumentsCost,
  };
}

export function registerLogicFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'logic', {
    and: {
      fn: (a, b) => (isTruthy(a) ? b : a),
      minArgs: 2,
      maxArgs: 2,
      description: 'a if a is falsy, else b',
    },
    or: {
      fn: (...args) => args.find(isTruthy) ?? false,
      minArgs: 0,
      description: 'First truthy argument, else false',
    },
    not: { fn: (a) => !isTruthy(a), minArgs: 1, maxArgs: 1, description: 'true iff a is falsy' },
    eq: binary('eq', 'Deep equality', deepEqual),
    ne: binary('ne', 'Deep inequality', (a, b) => !deepEqual(a, b)),
    gt: binary('gt', 'a > b', (a, b) => compareValues(a, b) > 0),
    gte: binary('gte', 'a >= b', (a, b) => compareValues(a, b) >= 0),
    lt: binary('lt', 'a < b', (a, b) => compareValues(a, b) < 0),
    lte: binary('lte', 'a <= b', (a, b) => compareValues(a, b) <= 0),
    in: binary('in', 'a is a member of b', isMember),
    notIn: binary('notIn', 'a is not a member of b', (a, b) => !isMember(a, b)),
    contains: binary('contains', 'b is a member of a', (a, b) => isMember(b, a)),
    notContains: binary('notContains', 'b is not a member of a', (a, b) => !isMember(b, a)),
    ifelse: {
      fn: (c, a, b) => (isTruthy(c) ? a : b),
      minArgs: 3,
      maxArgs: 3,
      description: 'a if c is truthy, else b (both already evaluated)',
    },
  });
}
