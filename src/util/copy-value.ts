import { setOwn } from './own-record.js';

/**
 * A deep copy that keeps types (Date, Map, Set, typed arrays) and never throws: values that
 * cannot be copied (functions, class instances) are shared, cycles are preserved. Whether the
 * result can be stored is the codec's decision, not ours.
 */
export function copyValue(value: unknown): unknown {
  return cloneValue(value, new Map());
}

/** {@link copyValue} with the copies made so far (shared and cyclic values stay so). */
export function cloneValue(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(cloneValue(item, seen));
    return out;
  }
  if (value instanceof Map) {
    const out = new Map<unknown, unknown>();
    seen.set(value, out);
    for (const [k, v] of value) out.set(k, cloneValue(v, seen));
    return out;
  }
  if (value instanceof Set) {
    const out = new Set<unknown>();
    seen.set(value, out);
    for (const v of value) out.add(cloneValue(v, seen));
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  if (ArrayBuffer.isView(value)) return copyView(value);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // not ours to copy
  const out: Record<string, unknown> =
    proto === null ? (Object.create(null) as Record<string, unknown>) : {};
  seen.set(value, out);
  for (const key of Object.keys(value))
    setOwn(out, key, cloneValue((value as Record<string, unknown>)[key], seen));
  return out;
}

function copyView(view: ArrayBufferView): unknown {
  if (Buffer.isBuffer(view)) return Buffer.from(view);
  const ctor = view.constructor as { new (source: ArrayBufferView): unknown };
  return view instanceof DataView ? new DataView(view.buffer.slice(0)) : new ctor(view);
}
