import type { FunctionRegistry } from '../function-registry.js';
import { callError, stringArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';
import { deepSizeOf, isCyclic, MAX_PRODUCED_UNITS, sizeOf } from '../meter.js';
import { pythonJsonDumps } from './python-json.js';

/** `NaN`/`Infinity` literals are not JSON; a number too large for a double (1e400) is refused too. */
function rejectNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new RangeError('number out of range');
  return value;
}

function jsonLoads(s: unknown): unknown {
  const text = stringArg('json_loads', s, 1);
  try {
    return JSON.parse(text, rejectNonFinite) as unknown;
  } catch (error) {
    throw callError('json_loads', `invalid JSON: ${(error as Error).message}`, error);
  }
}

function jsonDumps(value: unknown): string {
  try {
    return pythonJsonDumps(value);
  } catch (error) {
    throw callError('json_dumps', (error as Error).message, error);
  }
}

export function registerJsonFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'json', {
    json_loads: {
      fn: jsonLoads,
      minArgs: 1,
      maxArgs: 1,
      description: 'Parse JSON text',
      // Parsing with a reviver does about half a character per unit.
      cost: ([s]) => 1 + 2 * sizeOf(s),
    },
    json_dumps: {
      fn: jsonDumps,
      minArgs: 1,
      maxArgs: 1,
      description: "JSON text in Python's layout",
      // Python's layout is written by hand: a few units per value of the whole structure.
      cost: ([value], limit) => {
        const cap = Math.min(limit, MAX_PRODUCED_UNITS);
        const size = deepSizeOf(value, cap);
        // Past the cap, a cycle is charged once per object: the dump stops at it and says so.
        return 1 + 4 * (size > cap && isCyclic(value) ? deepSizeOf(value, cap, true) : size);
      },
    },
  });
}
