import { ExpressionBudgetError } from '../errors/expression-errors.js';

/**
 * Work units an evaluation may spend per millisecond of the time it has. A unit is roughly
 * one element or character touched; the slowest built-in per unit (a keyed sort) still does
 * more than this many in a millisecond, so a budget derived from the remaining time runs out
 * before the time does.
 */
export const UNITS_PER_MS = 20_000;
/** What any evaluation may spend, however little time is left (a trivial path read must work). */
const FLOOR_UNITS = 20_000;
/** Units of values one evaluation may produce (≈ elements or characters): a memory bound. */
export const MAX_PRODUCED_UNITS = 16 * 1024 * 1024;
/** The clock is read once per this many units spent, so checking time costs next to nothing. */
const CLOCK_EVERY_UNITS = 4_096;

/**
 * The budget of one evaluation: work charged before each function call (from its argument
 * sizes), values produced charged after it, and elapsed time checked as units are spent. A
 * string in data that turns out to be an expression cannot hold the event loop past the
 * node's deadline by more than one built-in call on data that already exists.
 *
 * The time it has is given as a duration (the node's remaining time on the execution's clock),
 * and checked against the monotonic process clock (`performance.now()`): evaluation is CPU work
 * that an injected clock cannot see — a fake clock stands still while it runs — so this
 * backstop is real time whatever the engine's clock, and a wall-clock jump cannot trip it.
 */
export class EvaluationMeter {
  #units: number;
  #produced = 0;
  #sinceClock = 0;
  /** `performance.now()` after which the evaluation stops. */
  readonly #until: number;

  constructor(
    /** Milliseconds the evaluation may take. */
    timeMs: number,
    /** Evaluate `$…` strings found while walking data (docs/flow-format.md §5.5); off: only under `$GLOBAL`. */
    readonly nestedData: boolean = true,
  ) {
    this.#units = Math.max(FLOOR_UNITS, timeMs * UNITS_PER_MS);
    this.#until = performance.now() + timeMs;
  }

  /** Spends `units` of work; throws ExpressionBudgetError when the budget or the time is gone. */
  charge(units: number, what: string): void {
    this.#units -= units;
    if (this.#units < 0) {
      throw new ExpressionBudgetError(
        `expression budget exhausted by ${what}: the evaluation would exceed the work its node's remaining time allows`,
      );
    }
    this.#sinceClock += units;
    if (this.#sinceClock >= CLOCK_EVERY_UNITS) {
      this.#sinceClock = 0;
      if (performance.now() > this.#until) {
        throw new ExpressionBudgetError(
          `expression budget exhausted by ${what}: the evaluation ran past its node's deadline`,
        );
      }
    }
  }

  /** Units this evaluation may still spend: where an estimate can stop counting. */
  get remaining(): number {
    return Math.max(0, this.#units);
  }

  /** Charges the walk of a whole structure (what showing it as JSON text costs) before it runs. */
  chargeDeep(value: unknown, what: string): void {
    if (typeof value === 'object' && value !== null)
      this.charge(deepSizeOf(value, this.remaining + 1), what);
  }

  /** Records a value produced by `what`; throws when the evaluation has produced too much. */
  produce(value: unknown, what: string): void {
    const size = sizeOf(value);
    if (size < 64) return;
    this.#produced += size;
    if (this.#produced > MAX_PRODUCED_UNITS) {
      throw new ExpressionBudgetError(
        `expression budget exhausted by ${what}: values produced exceed ${MAX_PRODUCED_UNITS} elements or characters`,
      );
    }
    this.charge(size, what);
  }
}

/** Shallow size in units: a string's length, an array's items, an object's keys; 1 otherwise. */
export function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) {
    if (value instanceof Map || value instanceof Set) return value.size;
    if (ArrayBuffer.isView(value)) return value.byteLength;
    let keys = 0;
    for (const key in value) if (Object.hasOwn(value, key)) keys++;
    return keys;
  }
  return 1;
}

/**
 * Deep size in units (every element, key and character), counted only up to `limit`: the
 * estimate for work that walks a whole structure (JSON text, deep equality) must not cost that
 * walk itself. An object met twice counts twice, as the walk it estimates meets it twice: a
 * short expression can build 100^4 references to one small array. A cycle ends at `limit`.
 */
export function deepSizeOf(value: unknown, limit: number, distinct = false): number {
  let total = 0;
  const stack: unknown[] = [value];
  // `distinct`: each object once (for a cyclic value, whose walk fails at the cycle).
  const seen = distinct ? new WeakSet<object>() : null;
  while (stack.length > 0 && total <= limit) {
    const item = stack.pop();
    if (seen && typeof item === 'object' && item !== null) {
      if (seen.has(item)) continue;
      seen.add(item);
    }
    total += sizeOf(item);
    if (Array.isArray(item)) {
      for (const child of item as unknown[]) if (typeof child !== 'number') stack.push(child);
    } else if (typeof item === 'object' && item !== null && !ArrayBuffer.isView(item)) {
      for (const key in item) {
        if (Object.hasOwn(item, key)) {
          total += key.length;
          stack.push((item as Record<string, unknown>)[key]);
        }
      }
    }
  }
  return total;
}

/** True when the value contains itself (a depth-first walk meets an object on its own path). */
export function isCyclic(value: unknown): boolean {
  const onPath = new WeakSet<object>();
  const done = new WeakSet<object>();
  const stack: { item: object; leaving: boolean }[] = [];
  if (typeof value === 'object' && value !== null) stack.push({ item: value, leaving: false });
  while (stack.length > 0) {
    const { item, leaving } = stack.pop()!;
    if (leaving) {
      onPath.delete(item);
      done.add(item);
      continue;
    }
    if (done.has(item)) continue;
    onPath.add(item);
    stack.push({ item, leaving: true });
    const children: unknown[] = Array.isArray(item)
      ? item
      : ArrayBuffer.isView(item)
        ? []
        : Object.values(item);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      if (onPath.has(child)) return true;
      if (!done.has(child)) stack.push({ item: child, leaving: false });
    }
  }
  return false;
}

/** What walking `value` whole costs: its deep size when it has parts, else its size. */
export function deepUnits(value: unknown, limit: number): number {
  return typeof value === 'object' && value !== null ? deepSizeOf(value, limit) : sizeOf(value);
}

/** 1 + the deep size of every argument: the cost of a call that walks its arguments whole. */
export function deepArgumentsCost(args: readonly unknown[], limit: number): number {
  let units = 1;
  for (const arg of args) units += deepUnits(arg, limit);
  return units;
}

/** A meter for callers outside a node (tests, tools): the default time bound from now. */
export function defaultMeter(maxMs = 1_000, nestedData = true): EvaluationMeter {
  return new EvaluationMeter(maxMs, nestedData);
}
