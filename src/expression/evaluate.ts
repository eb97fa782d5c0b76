import { defaultMeter, type EvaluationMeter } from './meter.js';
import { programFor } from './program.js';
import type { EvaluationScope } from './scope.js';
import { isPlainObject } from './value-kind.js';
import { isPromiseLike } from '../util/maybe-promise.js';
import type { MaybePromise } from '../util/maybe-promise.js';

export { classifyString } from './string-kind.js';
export type { StringKind } from './string-kind.js';

/**
 * §5.1: walks arrays and plain objects (keys are never evaluated) and evaluates each string
 * leaf; other leaves come back as the same reference. The result is synchronous unless a
 * function returned a promise. With `fallback`, a whole-expression leaf that evaluates to null
 * is evaluated again in `scope.parent`, and so on up the chain (§5.5).
 */
export function evaluateValue(
  value: unknown,
  scope: EvaluationScope,
  options?: { fallback?: boolean; meter?: EvaluationMeter },
): MaybePromise<unknown> {
  return evaluateAny(value, scope, options?.fallback === true, options?.meter ?? defaultMeter());
}

function evaluateAny(
  value: unknown,
  scope: EvaluationScope,
  fallback: boolean,
  meter: EvaluationMeter,
): MaybePromise<unknown> {
  if (typeof value === 'string') return evaluateString(value, scope, fallback, meter);
  if (Array.isArray(value)) return evaluateArray(value, scope, fallback, meter);
  if (isPlainObject(value)) return evaluateObject(value, scope, fallback, meter);
  return value;
}

function evaluateString(
  text: string,
  scope: EvaluationScope,
  fallback: boolean,
  meter: EvaluationMeter,
): MaybePromise<unknown> {
  const program = programFor(text, scope);
  const result = program.run(scope, undefined, 0, meter);
  const parent = scope.parent;
  if (!fallback || parent === undefined || program.kind !== 'expression') return result;
  if (isPromiseLike(result)) {
    return Promise.resolve(result).then((resolved) =>
      resolved === null ? evaluateString(text, parent, true, meter) : resolved,
    );
  }
  return result === null ? evaluateString(text, parent, true, meter) : result;
}

function evaluateArray(
  items: readonly unknown[],
  scope: EvaluationScope,
  fallback: boolean,
  meter: EvaluationMeter,
): MaybePromise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < items.length; i++) {
    const value = evaluateAny(items[i], scope, fallback, meter);
    if (isPromiseLike(value)) return finishArray(value, i, items, out, scope, fallback, meter);
    out.push(value);
  }
  return out;
}

/** Once a leaf is asynchronous the rest follow it in order, so side effects keep document order. */
async function finishArray(
  pending: PromiseLike<unknown>,
  from: number,
  items: readonly unknown[],
  out: unknown[],
  scope: EvaluationScope,
  fallback: boolean,
  meter: EvaluationMeter,
): Promise<unknown[]> {
  out.push(await pending);
  for (let i = from + 1; i < items.length; i++)
    out.push(await evaluateAny(items[i], scope, fallback, meter));
  return out;
}

function evaluateObject(
  record: Record<string, unknown>,
  scope: EvaluationScope,
  fallback: boolean,
  meter: EvaluationMeter,
): MaybePromise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = evaluateAny(record[key], scope, fallback, meter);
    if (isPromiseLike(value))
      return finishObject(value, i, keys, record, out, scope, fallback, meter);
    assign(out, key, value);
  }
  return out;
}

async function finishObject(
  pending: PromiseLike<unknown>,
  from: number,
  keys: readonly string[],
  record: Record<string, unknown>,
  out: Record<string, unknown>,
  scope: EvaluationScope,
  fallback: boolean,
  meter: EvaluationMeter,
): Promise<Record<string, unknown>> {
  assign(out, keys[from] as string, await pending);
  for (let i = from + 1; i < keys.length; i++) {
    const key = keys[i] as string;
    assign(out, key, await evaluateAny(record[key], scope, fallback, meter));
  }
  return out;
}

/** A `__proto__` key (JSON.parse makes it an own property) must stay a key, not become a prototype. */
function assign(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    out[key] = value;
  }
}
