import { isBuiltin } from './call-info.js';
import { editDistance } from './edit-distance.js';
import { FunctionRegistrationError } from '../errors/expression-errors.js';
import { registerArrayFunctions } from './functions/array.js';
import { registerDatetimeFunctions } from './functions/datetime.js';
import { registerDictFunctions } from './functions/dict.js';
import { registerJsonFunctions } from './functions/json.js';
import { registerLogicFunctions } from './functions/logic.js';
import { registerMathFunctions } from './functions/math.js';
import { registerStringFunctions } from './functions/string.js';

export type FunctionCategory =
  'math' | 'string' | 'logic' | 'array' | 'dict' | 'datetime' | 'json' | 'type';

export interface FunctionOptions {
  category?: FunctionCategory;
  /** The function mutates an argument in place; the engine detaches snapshots before it runs. */
  sideEffects?: boolean;
  /**
   * Its result is a function of its arguments alone (no clock, randomness or environment), so
   * a node calling only such functions can be recomputed after a crash instead of stored first
   * (docs/durable-contract.md §5). Only plaita's own functions can be: a host's never is.
   */
  deterministic?: boolean;
  description?: string;
  /** Replace an existing registration instead of throwing. */
  override?: boolean;
  /** Argument-count bounds checked before the call (a wrong count is a `FunctionCallError`). */
  minArgs?: number;
  maxArgs?: number;
  /**
   * Work units the call will cost, estimated from its arguments before it runs (meter.ts);
   * default: one per element or character of the arguments. Declare it when the work grows
   * faster than the input (a sort) or the output can dwarf it (a repeat). `limit`: the units
   * the evaluation has left, where counting can stop (anything above it fails the call).
   */
  cost?: (args: readonly unknown[], limit: number) => number;
}

/** Receives evaluated arguments only; may return a promise. */
export type ExpressionFunction = (...args: unknown[]) => unknown;

export interface RegisteredFunction {
  readonly name: string;
  readonly fn: ExpressionFunction;
  readonly category: FunctionCategory | undefined;
  readonly sideEffects: boolean;
  readonly deterministic: boolean;
  readonly description: string | undefined;
  readonly minArgs?: number;
  readonly maxArgs?: number;
  readonly cost?: (args: readonly unknown[], limit: number) => number;
}

/** `$F.<ident>(`: a name that does not match could never be called. */
const CALLABLE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const MAX_SUGGESTIONS = 3;

/**
 * The `$F` namespace (docs/flow-format.md §5.8, §5.9). Names live in a `Map`, so no lookup can reach
 * `Object.prototype` members such as `constructor` or `toString`.
 */
export class FunctionRegistry {
  private readonly functions = new Map<string, RegisteredFunction>();
  /** Names registered with a function that is not one of plaita's own (`markBuiltin`). */
  #hostFunctions = new Set<string>();

  register(name: string, fn: ExpressionFunction, options: FunctionOptions = {}): this {
    if (!CALLABLE_NAME.test(name)) {
      throw new FunctionRegistrationError(
        `cannot register function ${JSON.stringify(name)}: a name must be a letter followed by letters, digits or "_"`,
      );
    }
    if (typeof fn !== 'function') {
      throw new FunctionRegistrationError(`cannot register function "${name}": not a function`);
    }
    if (this.functions.has(name) && options.override !== true) {
      throw new FunctionRegistrationError(
        `function "${name}" is already registered; pass { override: true } to replace it`,
      );
    }
    this.functions.set(name, Object.freeze(describe(name, fn, options)));
    // A built-in's cost estimate is plaita's own too; a host's cost is host code run per call.
    if (isBuiltin(fn) && (options.cost === undefined || isBuiltin(options.cost)))
      this.#hostFunctions.delete(name);
    else this.#hostFunctions.add(name);
    return this;
  }

  /** Every function is plaita's own: evaluating an expression runs no host code. */
  onlyBuiltins(): boolean {
    return this.#hostFunctions.size === 0;
  }

  get(name: string): RegisteredFunction | undefined {
    return this.functions.get(name);
  }

  has(name: string): boolean {
    return this.functions.has(name);
  }

  names(): string[] {
    return [...this.functions.keys()];
  }

  /** An independent registry with the same registrations (they are immutable, so shared). */
  copy(): FunctionRegistry {
    const copy = new FunctionRegistry();
    for (const [name, registered] of this.functions) copy.functions.set(name, registered);
    copy.#hostFunctions = new Set(this.#hostFunctions);
    return copy;
  }

  /** Up to three registered names close to `name`: case-insensitive edit distance ≤ 2, or a prefix. */
  suggest(name: string): string[] {
    const wanted = name.toLowerCase();
    const scored: { name: string; distance: number }[] = [];
    for (const candidate of this.functions.keys()) {
      const lower = candidate.toLowerCase();
      // A name the typed one begins ranks between one and two edits away.
      const prefix = wanted.length > 0 && lower.startsWith(wanted) ? 1.5 : Infinity;
      const distance = Math.min(editDistance(wanted, lower), prefix);
      if (distance <= 2) scored.push({ name: candidate, distance });
    }
    scored.sort(
      (a, b) => a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    return scored.slice(0, MAX_SUGGESTIONS).map((entry) => entry.name);
  }
}

function describe(
  name: string,
  fn: ExpressionFunction,
  options: FunctionOptions,
): RegisteredFunction {
  const { minArgs, maxArgs } = options;
  checkBound(name, 'minArgs', minArgs);
  checkBound(name, 'maxArgs', maxArgs);
  if (minArgs !== undefined && maxArgs !== undefined && minArgs > maxArgs) {
    throw new FunctionRegistrationError(
      `function "${name}": minArgs ${minArgs} exceeds maxArgs ${maxArgs}`,
    );
  }
  return {
    name,
    fn,
    category: options.category,
    sideEffects: options.sideEffects === true,
    deterministic: isBuiltin(fn) && options.deterministic !== false,
    description: options.description,
    ...(minArgs === undefined ? {} : { minArgs }),
    ...(maxArgs === undefined ? {} : { maxArgs }),
    ...(options.cost === undefined ? {} : { cost: options.cost }),
  };
}

function checkBound(name: string, key: string, bound: number | undefined): void {
  if (bound !== undefined && !(Number.isInteger(bound) && bound >= 0)) {
    throw new FunctionRegistrationError(
      `function "${name}": ${key} must be a non-negative integer`,
    );
  }
}

function createDefaultFunctions(): FunctionRegistry {
  const registry = new FunctionRegistry();
  registerMathFunctions(registry);
  registerStringFunctions(registry);
  registerArrayFunctions(registry);
  registerDictFunctions(registry);
  registerLogicFunctions(registry);
  registerDatetimeFunctions(registry);
  registerJsonFunctions(registry);
  return registry;
}

/** The 73 built-ins of docs/flow-format.md §5.8. Engines should register custom functions on a `copy()`. */
export const defaultFunctions: FunctionRegistry = createDefaultFunctions();
