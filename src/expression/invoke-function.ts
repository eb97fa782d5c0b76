import { FunctionCallError } from '../errors/expression-errors.js';
import type { FunctionRegistry, RegisteredFunction } from './function-registry.js';
import { sizeOf, type EvaluationMeter } from './meter.js';
import type { EvaluationScope } from './scope.js';
import { isPromiseLike } from '../util/maybe-promise.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/**
 * Calls a registered function with evaluated arguments after checking its arity. `undefined`
 * results become null. Built-ins receive the scope as call info and have unexpected failures
 * wrapped; a custom function's own errors pass through unchanged.
 */
export function invokeFunction(
  registered: RegisteredFunction,
  builtin: boolean,
  args: unknown[],
  scope: EvaluationScope,
  meter: EvaluationMeter,
): MaybePromise<unknown> {
  checkArity(registered, args.length);
  const what = `$F.${registered.name}`;
  const cost = registered.cost ? registered.cost(args, meter.remaining + 1) : argumentsCost(args);
  meter.charge(cost, what);
  const fn = registered.fn;
  let result: unknown;
  if (builtin) {
    try {
      // Built-ins get the scope as call info (`timeZone`, `clock`); custom functions never do.
      result = fn.apply(scope, args);
    } catch (error) {
      if (error instanceof FunctionCallError) throw error;
      throw new FunctionCallError(
        registered.name,
        `$F.${registered.name} failed: ${String(error)}`,
        { cause: error },
      );
    }
  } else {
    result = fn(...args);
  }
  if (isPromiseLike(result))
    return Promise.resolve(result).then((value) => produced(meter, value ?? null, what));
  return produced(meter, result ?? null, what);
}

function produced(meter: EvaluationMeter, value: unknown, what: string): unknown {
  meter.produce(value, what);
  return value;
}

/** What a call costs before it runs when its function declares nothing: one unit per element it gets. */
function argumentsCost(args: readonly unknown[]): number {
  let units = 1;
  for (const arg of args) units += sizeOf(arg);
  return units;
}

function checkArity(registered: RegisteredFunction, count: number): void {
  const minArgs = registered.minArgs ?? 0;
  const maxArgs = registered.maxArgs ?? Infinity;
  if (count >= minArgs && count <= maxArgs) return;
  const name = registered.name;
  const wanted =
    minArgs === maxArgs
      ? `${minArgs} argument${minArgs === 1 ? '' : 's'}`
      : maxArgs === Infinity
        ? `at least ${minArgs} argument${minArgs === 1 ? '' : 's'}`
        : `${minArgs} to ${maxArgs} arguments`;
  throw new FunctionCallError(name, `$F.${name} takes ${wanted}, got ${count}`);
}

/** The error for an unknown `$F` name, with the registry's suggestions. */
export function unknownFunction(name: string, functions: FunctionRegistry): FunctionCallError {
  const suggestions = functions.suggest(name);
  const hint =
    suggestions.length > 0
      ? `did you mean ${suggestions.map((candidate) => `$F.${candidate}`).join(', ')}?`
      : 'no registered function has a similar name';
  return new FunctionCallError(name, `unknown function $F.${name}; ${hint}`);
}
