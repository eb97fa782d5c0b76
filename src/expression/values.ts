import { compareCodePoints } from '../util/compare-code-points.js';
import { ValueTypeError } from '../errors/expression-errors.js';
import { isRecord, valueKind } from './value-kind.js';

/** §5.7: Python truthiness over JSON values. `NaN` is truthy, as `bool(float('nan'))` is. */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '')
    return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) {
    for (const key in value) if (Object.hasOwn(value, key)) return true;
    return false;
  }
  return true;
}

/** Booleans take part in numeric comparison as 1/0, as Python's `bool` is an `int`. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** §5.7 deep equality: Python `==` restricted to JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = asNumber(a);
  if (na !== undefined) return na === asNumber(b);
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a === 'string') return false;
  if (Array.isArray(a)) return Array.isArray(b) && arraysEqual(a, b);
  if (isRecord(a)) return isRecord(b) && recordsEqual(a, b);
  return false;
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
  return true;
}

function recordsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !deepEqual(a[key], b[key])) return false;
  return true;
}

/**
 * §5.7 ordering: negative, zero or positive; `NaN` when either side is NaN, so every ordering
 * test on it is false (as in Python). Throws `ValueTypeError` for pairs Python cannot order.
 */
export function compareValues(a: unknown, b: unknown): number {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined)
    return na < nb ? -1 : na > nb ? 1 : na === nb ? 0 : Number.NaN;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return compareArrays(a, b);
  throw new ValueTypeError(`cannot order ${valueKind(a)} and ${valueKind(b)}`);
}

/** Python compares the first unequal pair, then the lengths, so equal dicts inside lists are fine. */
function compareArrays(a: readonly unknown[], b: readonly unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!deepEqual(a[i], b[i])) return compareValues(a[i], b[i]);
  return a.length - b.length;
}

/**
 * §5.7 membership, Python `x in container`: substring for strings, deep-equal element for arrays,
 * key for objects (non-string scalars are never keys; arrays/objects are unhashable → error).
 */
export function isMember(item: unknown, container: unknown): boolean {
  if (typeof container === 'string') {
    if (typeof item !== 'string') {
      throw new ValueTypeError(
        `'in <string>' requires a string on the left, got ${valueKind(item)}`,
      );
    }
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((element) => deepEqual(element, item));
  if (isRecord(container)) {
    if (typeof item === 'string') return Object.hasOwn(container, item);
    if (Array.isArray(item) || isRecord(item)) {
      throw new ValueTypeError(`an ${valueKind(item)} cannot be a key of an object`);
    }
    return false;
  }
  throw new ValueTypeError(`a ${valueKind(container)} has no members`);
}

/** §5.6: how a value reads inside a template, `concat` or a query string. */
export function displayForm(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? 'null';
}
