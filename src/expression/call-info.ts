import type { Clock } from '../util/clock.js';

/**
 * The second channel through which built-in functions learn what they need from the evaluation
 * (today the time zone and the clock, for `now`/`today`). The evaluator passes it as `this`, and
 * only to functions marked here, so a custom function never receives anything but its arguments.
 */
export interface CallInfo {
  readonly timeZone?: string | undefined;
  readonly clock?: Clock | undefined;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- identity marker only
const builtins = new WeakSet<Function>();

/** Marks `fn` as one of ours: it receives the call info as `this`, and its failures are wrapped. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- identity marker only
export function markBuiltin<F extends Function>(fn: F): F {
  builtins.add(fn);
  return fn;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- identity marker only
export function isBuiltin(fn: Function): boolean {
  return builtins.has(fn);
}
