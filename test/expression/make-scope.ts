import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import type { FunctionRegistry } from '../../src/expression/function-registry.js';
import type { Context, EvaluationScope } from '../../src/expression/scope.js';
import type { Clock } from '../../src/util/clock.js';

export interface TestScope extends EvaluationScope {
  context: Context;
  readonly warnings: string[];
}

/** A scope over `context` with the default functions and a warning recorder. */
export function makeScope(
  context: Context = {},
  extra: {
    functions?: FunctionRegistry;
    parent?: EvaluationScope;
    timeZone?: string;
    clock?: Clock;
    beforeMutation?: () => void;
  } = {},
): TestScope {
  const warnings: string[] = [];
  return {
    context,
    functions: extra.functions ?? defaultFunctions,
    parent: extra.parent,
    timeZone: extra.timeZone,
    clock: extra.clock,
    warnings,
    warn: (message: string) => warnings.push(message),
    ...(extra.beforeMutation === undefined ? {} : { beforeMutation: extra.beforeMutation }),
  };
}

/** Evaluates synchronously, failing the test if a promise comes back. */
export function evalSync(value: unknown, context: Context = {}, scope?: EvaluationScope): unknown {
  const result = evaluateValue(value, scope ?? makeScope(context));
  if (result instanceof Promise) throw new Error('expected a synchronous result');
  return result;
}

/** `$F.name(args…)` with the arguments given as JSON values through `$INPUT`. */
export function call(name: string, ...args: unknown[]): unknown {
  const slots = args.map((_, i) => `$INPUT[${i}]`).join(', ');
  return evalSync(`$F.${name}(${slots})`, { $INPUT: args });
}
