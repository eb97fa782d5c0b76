import { codePointIndexOf, codePointLength, codePoints, hasSurrogates } from '../code-points.js';
import { ValueTypeError } from '../../errors/expression-errors.js';
import type { FunctionRegistry } from '../function-registry.js';
import { resolveIndex, sliceBounds } from '../python-index.js';
import { isRecord, valueKind } from '../value-kind.js';
import { compareValues, deepEqual } from '../values.js';
import { arrayArg, callError, integerArg, isInteger, ownValue, stringArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';
import { deepArgumentsCost, sizeOf } from '../meter.js';

function len(fn: string, x: unknown): number {
  if (typeof x === 'string') return codePointLength(x);
  if (Array.isArray(x)) return x.length;
  if (isRecord(x)) return Object.keys(x).length;
  throw callError(fn, `a ${valueKind(x)} has no length`);
}

function index(a: unknown, x: unknown): number {
  if (Array.isArray(a)) {
    const position = a.findIndex((item) => deepEqual(item, x));
    if (position < 0) throw callError('index', 'value is not in the array');
    return position;
  }
  if (typeof a === 'string') {
    const unit = a.indexOf(stringArg('index', x, 2));
    if (unit < 0) throw callError('index', 'substring not found');
    return codePointIndexOf(a, unit);
  }
  throw callError('index', `argument 1 must be an array or a string, got ${valueKind(a)}`);
}

function bound(value: unknown, position: number): number | null {
  return value === null ? null : integerArg('slice', value, position);
}

function slice(a: unknown, start: unknown, end: unknown): unknown {
  const from = bound(start, 2);
  const to = bound(end, 3);
  if (Array.isArray(a)) return a.slice(...sliceBounds(from, to, a.length));
  if (typeof a === 'string') {
    if (!hasSurrogates(a)) return a.slice(...sliceBounds(from, to, a.length));
    const chars = codePoints(a);
    return chars.slice(...sliceBounds(from, to, chars.length)).join('');
  }
  throw callError('slice', `argument 1 must be an array or a string, got ${valueKind(a)}`);
}

function insert(fn: string, a: unknown, i: unknown, x: unknown): unknown[] {
  const items = arrayArg(fn, a, 1);
  const [position] = sliceBounds(integerArg(fn, i, 2), null, items.length);
  return [...items.slice(0, position), x, ...items.slice(position)];
}

function remove(a: unknown, x: unknown): unknown[] {
  const items = arrayArg('remove', a, 1);
  const position = items.findIndex((item) => deepEqual(item, x));
  if (position < 0) throw callError('remove', 'value is not in the array');
  return [...items.slice(0, position), ...items.slice(position + 1)];
}

function reverse(a: unknown): unknown {
  if (Array.isArray(a)) return [...(a as unknown[])].reverse();
  if (typeof a === 'string') return codePoints(a).reverse().join('');
  throw callError('reverse', `argument 1 must be an array or a string, got ${valueKind(a)}`);
}

/** Python `sorted(a, key=…, reverse=desc)`: stable, and `desc` keeps equal items in order. */
function sort(a: unknown, key: unknown = null, desc: unknown = false): unknown[] {
  let items: unknown[];
  if (Array.isArray(a)) items = a;
  else if (typeof a === 'string') items = codePoints(a);
  else if (isRecord(a)) items = Object.keys(a);
  else throw callError('sort', `argument 1 must be an array, got ${valueKind(a)}`);
  if (key !== null && typeof key !== 'string')
    throw callError('sort', `the key must be a string or null, got ${valueKind(key)}`);
  if (!isInteger(desc)) throw callError('sort', `desc must be a boolean, got ${valueKind(desc)}`);
  const direction = desc === false || desc === 0 ? 1 : -1;
  // As in the original, an object item is ordered by item[key] (null without a key).
  const keyed = items.map((item) => ({
    item,
    key: isRecord(item) ? (key === null ? null : (ownValue(item, key) ?? null)) : item,
  }));
  try {
    keyed.sort((x, y) => direction * compareValues(x.key, y.key));
  } catch (error) {
    if (error instanceof ValueTypeError) throw callError('sort', error.message, error);
    throw error;
  }
  return keyed.map((entry) => entry.item);
}

function position(fn: string, items: ArrayLike<unknown>, i: unknown): number {
  const index = integerArg(fn, i, 2);
  const resolved = resolveIndex(index, items.length);
  if (resolved === undefined)
    throw callError(fn, `index ${index} is out of range for length ${items.length}`);
  return resolved;
}

function getListItem(a: unknown, i: unknown): unknown {
  if (Array.isArray(a)) return a[position('getListItem', a, i)] ?? null;
  if (typeof a === 'string') {
    const chars = hasSurrogates(a) ? codePoints(a) : a;
    return chars[position('getListItem', chars, i)];
  }
  throw callError('getListItem', `argument 1 must be an array or a string, got ${valueKind(a)}`);
}

function pop(fn: string, a: unknown, i: unknown): unknown {
  const items = arrayArg(fn, a, 1);
  return items.splice(position(fn, items, i), 1)[0] ?? null;
}

function setListItem(a: unknown, i: unknown, value: unknown): null {
  const items = arrayArg('setListItem', a, 1);
  items[position('setListItem', items, i)] = value;
  return null;
}

export function registerArrayFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'array', {
    len: {
      fn: (x) => len('len', x),
      minArgs: 1,
      maxArgs: 1,
      description: 'Length of a string, array or object',
    },
    length: { fn: (x) => len('length', x), minArgs: 1, maxArgs: 1, description: 'Alias of len' },
    index: {
      fn: index,
      minArgs: 2,
      maxArgs: 2,
      cost: deepArgumentsCost, // compares items deep
      description: 'First position of a value or substring',
    },
    slice: { fn: slice, minArgs: 3, maxArgs: 3, description: 'Copy of a[start:end]' },
    append: {
      fn: (a, x) => [...arrayArg('append', a, 1), x],
      minArgs: 2,
      maxArgs: 2,
      description: 'Copy with x at the end',
    },
    extend: {
      fn: (a, b) => [...arrayArg('extend', a, 1), ...arrayArg('extend', b, 2)],
      minArgs: 2,
      maxArgs: 2,
      description: 'Copy of a followed by the items of b',
    },
    insert: {
      fn: (a, i, x) => insert('insert', a, i, x),
      minArgs: 3,
      maxArgs: 3,
      description: 'Copy with x before i',
    },
    remove: {
      fn: remove,
      minArgs: 2,
      maxArgs: 2,
      cost: deepArgumentsCost, // compares items deep
      description: 'Copy without the first item equal to x',
    },
    reverse: { fn: reverse, minArgs: 1, maxArgs: 1, description: 'Reversed copy' },
    sort: {
      fn: sort,
      minArgs: 1,
      maxArgs: 3,
      description: 'Stable sorted copy, optionally by key, descending',
      // n log n comparisons, two units each (keyed copies, value comparison).
      cost: ([a]) => {
        const n = sizeOf(a);
        return 1 + 2 * n * Math.ceil(Math.log2(n + 1));
      },
    },
    getListItem: { fn: getListItem, minArgs: 2, maxArgs: 2, description: 'a[i]' },
    addListItem: {
      fn: (a, x) => [...arrayArg('addListItem', a, 1), x],
      minArgs: 2,
      maxArgs: 2,
      description: 'Alias of append',
    },
    insertListItem: {
      fn: (a, i, x) => insert('insertListItem', a, i, x),
      minArgs: 3,
      maxArgs: 3,
      description: 'Alias of insert',
    },
    pop: {
      fn: (a, i) => pop('pop', a, i),
      minArgs: 2,
      maxArgs: 2,
      sideEffects: true,
      description: 'Remove and return a[i]',
    },
    delListItem: {
      fn: (a, i) => pop('delListItem', a, i),
      minArgs: 2,
      maxArgs: 2,
      sideEffects: true,
      description: 'Alias of pop',
    },
    setListItem: {
      fn: setListItem,
      minArgs: 3,
      maxArgs: 3,
      sideEffects: true,
      description: 'a[i] = v',
    },
  });
}
