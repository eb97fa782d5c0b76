import type { FunctionRegistry } from '../function-registry.js';
import { valueKind } from '../value-kind.js';
import { callError, integerArg, isInteger, isNumeric, numberArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';
import { roundToDigits, roundToInteger } from './python-round.js';

/** The original caps `pow` exponents so a 20-byte expression cannot burn minutes of CPU. */
const MAX_POW_EXPONENT = 10_000;
/** Same spirit for `mul` repetition: a string or array result is capped at this many units. */
export const MAX_REPEAT_RESULT = 10_000_000;

function add(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) return Number(a) + Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...(a as unknown[]), ...(b as unknown[])];
  throw callError('add', `cannot add ${valueKind(a)} and ${valueKind(b)}`);
}

function sub(a: unknown, b: unknown): number {
  return numberArg('sub', a, 1) - numberArg('sub', b, 2);
}

function mul(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) return Number(a) * Number(b);
  if (isInteger(b) && (typeof a === 'string' || Array.isArray(a))) return repeat(a, Number(b));
  if (isInteger(a) && (typeof b === 'string' || Array.isArray(b))) return repeat(b, Number(a));
  throw callError('mul', `cannot multiply ${valueKind(a)} by ${valueKind(b)}`);
}

function repeat(sequence: string | unknown[], times: number): string | unknown[] {
  const count = Math.max(times, 0);
  if (sequence.length * count > MAX_REPEAT_RESULT) {
    throw callError('mul', `the repeated result would exceed ${MAX_REPEAT_RESULT} items`);
  }
  if (typeof sequence === 'string') return sequence.repeat(count);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) for (const item of sequence) out.push(item);
  return out;
}

function repeatedSize(sequence: unknown, times: unknown): number {
  if (!isInteger(times) || !(typeof sequence === 'string' || Array.isArray(sequence))) return 0;
  // Past the cap the function refuses by itself, with the clearer message.
  return Math.min(sequence.length * Math.max(Number(times), 0), MAX_REPEAT_RESULT);
}

function div(a: unknown, b: unknown): number {
  const dividend = numberArg('div', a, 1);
  const divisor = numberArg('div', b, 2);
  if (divisor === 0) throw callError('div', 'division by zero');
  return dividend / divisor;
}

/** Floored modulo: the result has the sign of the divisor (`mod(-7, 3)` is 2). */
function mod(a: unknown, b: unknown): number {
  const dividend = numberArg('mod', a, 1);
  const divisor = numberArg('mod', b, 2);
  if (divisor === 0) throw callError('mod', 'modulo by zero');
  const remainder = dividend % divisor;
  if (remainder === 0) return divisor < 0 ? -0 : 0;
  return remainder < 0 !== divisor < 0 ? remainder + divisor : remainder;
}

function pow(a: unknown, b: unknown): number {
  const base = numberArg('pow', a, 1);
  const exponent = numberArg('pow', b, 2);
  if (Number.isInteger(exponent) && Math.abs(exponent) > MAX_POW_EXPONENT) {
    throw callError('pow', `exponent ${exponent} is too large (limit ${MAX_POW_EXPONENT})`);
  }
  if (base === 0 && exponent < 0)
    throw callError('pow', 'zero cannot be raised to a negative power');
  // Python: 1 ** anything and (-1) ** ±inf are 1; JavaScript says NaN.
  if (base === 1 || (base === -1 && !Number.isFinite(exponent))) return 1;
  const result = base ** exponent;
  if (Number.isNaN(result)) throw callError('pow', `${base} ** ${exponent} is not a real number`);
  if (!Number.isFinite(result) && Number.isFinite(base) && Number.isFinite(exponent)) {
    throw callError('pow', `${base} ** ${exponent} is too large`);
  }
  return result;
}

function finite(fn: string, x: unknown): number {
  const value = numberArg(fn, x, 1);
  if (!Number.isFinite(value)) throw callError(fn, `cannot convert ${value} to an integer`);
  return value;
}

function sqrt(x: unknown): number {
  const value = numberArg('sqrt', x, 1);
  if (value < 0) throw callError('sqrt', `square root of a negative number (${value})`);
  return Math.sqrt(value);
}

function round(x: unknown, digits: unknown = null): number {
  if (digits === null) return roundToInteger(finite('round', x));
  const value = numberArg('round', x, 1);
  const rounded = roundToDigits(value, integerArg('round', digits, 2));
  if (!Number.isFinite(rounded) && Number.isFinite(value))
    throw callError('round', 'rounded value too large');
  return rounded;
}

export function registerMathFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'math', {
    add: {
      fn: add,
      minArgs: 2,
      maxArgs: 2,
      description: 'Sum of numbers, or concatenation of strings or arrays',
    },
    sub: { fn: sub, minArgs: 2, maxArgs: 2, description: 'Difference a - b' },
    mul: {
      fn: mul,
      minArgs: 2,
      maxArgs: 2,
      description: 'Product; a string or array times an integer repeats it',
      // A repeat's output is known before it is built: charge it first.
      cost: ([a, b]) => 1 + repeatedSize(a, b) + repeatedSize(b, a),
    },
    div: { fn: div, minArgs: 2, maxArgs: 2, description: 'True division a / b' },
    mod: { fn: mod, minArgs: 2, maxArgs: 2, description: 'Floored modulo (sign of b)' },
    pow: { fn: pow, minArgs: 2, maxArgs: 2, description: 'a raised to the power b' },
    abs: {
      fn: (x) => Math.abs(numberArg('abs', x, 1)),
      minArgs: 1,
      maxArgs: 1,
      description: 'Absolute value',
    },
    ceil: {
      fn: (x) => Math.ceil(finite('ceil', x)) + 0,
      minArgs: 1,
      maxArgs: 1,
      description: 'Smallest integer ≥ x',
    },
    floor: {
      fn: (x) => Math.floor(finite('floor', x)),
      minArgs: 1,
      maxArgs: 1,
      description: 'Largest integer ≤ x',
    },
    round: {
      fn: round,
      minArgs: 1,
      maxArgs: 2,
      description: 'Round half to even, to n digits (default: integer)',
    },
    trunc: {
      fn: (x) => Math.trunc(finite('trunc', x)) + 0,
      minArgs: 1,
      maxArgs: 1,
      description: 'Integer part',
    },
    sqrt: { fn: sqrt, minArgs: 1, maxArgs: 1, description: 'Square root' },
  });
}
