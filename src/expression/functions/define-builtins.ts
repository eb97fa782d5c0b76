import { markBuiltin } from '../call-info.js';
import type {
  ExpressionFunction,
  FunctionCategory,
  FunctionRegistry,
} from '../function-registry.js';

export interface BuiltinSpec {
  readonly fn: ExpressionFunction;
  readonly minArgs: number;
  /** Absent: variadic. */
  readonly maxArgs?: number;
  readonly sideEffects?: boolean;
  /** False for a function that reads the clock: see FunctionOptions.deterministic. */
  readonly deterministic?: false;
  readonly description: string;
  /** See FunctionOptions.cost. */
  readonly cost?: (args: readonly unknown[], limit: number) => number;
}

/** Registers a table of built-ins of one category, with their arity bounds. */
export function defineBuiltins(
  registry: FunctionRegistry,
  category: FunctionCategory,
  specs: Readonly<Record<string, BuiltinSpec>>,
): void {
  for (const [name, spec] of Object.entries(specs)) {
    registry.register(name, markBuiltin(spec.fn), {
      category,
      description: spec.description,
      sideEffects: spec.sideEffects === true,
      deterministic: spec.deterministic !== false,
      minArgs: spec.minArgs,
      ...(spec.maxArgs === undefined ? {} : { maxArgs: spec.maxArgs }),
      ...(spec.cost === undefined ? {} : { cost: markBuiltin(spec.cost) }),
    });
  }
}
