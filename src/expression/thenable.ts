import type { MaybePromise } from '../util/maybe-promise.js';

/*
 * Runtime twins of the helpers in src/util/maybe-promise.ts. That module exports a function named
 * `then`, which makes its module namespace object a thenable: `await import()` of it (and vitest,
 * which loads every module that way) calls that `then` and rejects. Only its types are imported
 * here until the export is renamed.
 */

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Applies `next` now when `value` is synchronous, after it settles otherwise. */
export function whenReady<T, R>(
  value: MaybePromise<T>,
  next: (resolved: T) => MaybePromise<R>,
): MaybePromise<R> {
  return isThenable(value) ? Promise.resolve(value).then(next) : next(value);
}
