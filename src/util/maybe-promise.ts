/** A value that is available now, or later. Keeps the all-synchronous path free of promises. */
export type MaybePromise<T> = T | Promise<T>;

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Applies `next` to `value` now when it is synchronous, after it settles otherwise.
 * (Not named `then`: a module exporting `then` is itself a thenable to `await import()`.)
 */
export function whenReady<T, R>(
  value: MaybePromise<T>,
  next: (resolved: T) => MaybePromise<R>,
): MaybePromise<R> {
  return isPromiseLike(value) ? Promise.resolve(value).then(next) : next(value);
}
