import { FunctionCallError } from '../../errors/expression-errors.js';
import { isRecord, valueKind } from '../value-kind.js';

/**
 * Argument checks for the built-ins. Python raises `TypeError` where a JavaScript operator would
 * coerce, so every built-in states the kinds it accepts and fails with a `FunctionCallError`.
 * Booleans count as the integers 1/0 wherever Python accepts an `int` (Python's `bool` is one).
 */

export function callError(fn: string, message: string, cause?: unknown): FunctionCallError {
  return new FunctionCallError(
    fn,
    `$F.${fn}: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

function wrongKind(
  fn: string,
  position: number,
  wanted: string,
  value: unknown,
): FunctionCallError {
  return callError(fn, `argument ${position} must be ${wanted}, got ${valueKind(value)}`);
}

export function isNumeric(value: unknown): value is number | boolean {
  return typeof value === 'number' || typeof value === 'boolean';
}

export function isInteger(value: unknown): value is number | boolean {
  return typeof value === 'boolean' || Number.isInteger(value);
}

export function stringArg(fn: string, value: unknown, position: number): string {
  if (typeof value === 'string') return value;
  throw wrongKind(fn, position, 'a string', value);
}

export function numberArg(fn: string, value: unknown, position: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw wrongKind(fn, position, 'a number', value);
}

export function integerArg(fn: string, value: unknown, position: number): number {
  if (isInteger(value)) return Number(value);
  throw wrongKind(fn, position, 'an integer', value);
}

export function arrayArg(fn: string, value: unknown, position: number): unknown[] {
  if (Array.isArray(value)) return value;
  throw wrongKind(fn, position, 'an array', value);
}

export function recordArg(fn: string, value: unknown, position: number): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw wrongKind(fn, position, 'an object', value);
}

/** Own-property read: `constructor`, `__proto__` and friends are absent unless really stored. */
export function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? (record[key] ?? null) : undefined;
}

/** Sets an own data property even for the key `__proto__`, so no prototype is ever replaced. */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
