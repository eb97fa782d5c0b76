/**
 * Records keyed by ids that come from documents and data (`$NODE`, `$VISITS`, `attempts`,
 * `timings`). A node may be called `__proto__`, `constructor` or `hasOwnProperty`: reads must
 * see only own properties, and a write of `__proto__` must create the property rather than
 * set the object's prototype.
 */

/** The own value at `key`, or undefined; never something inherited from Object.prototype. */
export function getOwn<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Assignment to `__proto__` would set the prototype instead of creating the property. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(record, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    record[key] = value;
  }
}

/** A copy of `record` with `key` set (the object-spread form, safe for every key). */
export function withOwn<T>(
  record: Readonly<Record<string, T>>,
  key: string,
  value: T,
): Record<string, T> {
  const copy = { ...record };
  setOwn(copy, key, value);
  return copy;
}
