import type { CallExpr, Expr, PathExpr } from './ast.js';
import { isBuiltin } from './call-info.js';
import { codePoints, hasSurrogates } from './code-points.js';
import { ExpressionError } from '../errors/expression-errors.js';
import type { RegisteredFunction } from './function-registry.js';
import { invokeFunction, unknownFunction } from './invoke-function.js';
import type { EvaluationMeter } from './meter.js';
import { resolveIndex } from './python-index.js';
import type { Context, EvaluationScope } from './scope.js';
import { isEvaluable } from './string-kind.js';
import { isRecord, valueKind } from './value-kind.js';
import { isPromiseLike } from '../util/maybe-promise.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/**
 * A parsed string turned into a closure. `local` is the object a nested expression is evaluated
 * against (§5.5); when it is absent the closure reads `scope.context` at each root, so a context
 * the engine swaps in `beforeMutation` is seen by everything evaluated after the swap.
 */
export type Compiled = (
  scope: EvaluationScope,
  local: Context | undefined,
  depth: number,
  meter: EvaluationMeter,
) => MaybePromise<unknown>;

/** Evaluates a string found by a field step against the object that holds it. */
export type NestedEvaluator = (
  text: string,
  holder: Context,
  scope: EvaluationScope,
  depth: number,
  meter: EvaluationMeter,
) => MaybePromise<unknown>;

/** Fields named like a root are read as that root (`$PARENT.INPUT.x` ≡ `$PARENT.$INPUT.x`). */
const ROOT_FIELDS = new Set(['INPUT', 'NODE', 'PARENT', 'GLOBAL', 'ENV']);

/** One path step: a field name, or (when `field` is null) an index. One shape keeps the walk monomorphic. */
class Step {
  constructor(
    readonly field: string | null,
    readonly index: number,
  ) {}
}

export function compileExpression(expr: Expr, source: string, nested: NestedEvaluator): Compiled {
  switch (expr.type) {
    case 'literal': {
      const value = expr.value;
      return () => value;
    }
    case 'path':
      return compilePath(expr, source, nested);
    case 'call':
      return compileCall(expr, source, nested);
  }
}

function compilePath(expr: PathExpr, source: string, nested: NestedEvaluator): Compiled {
  // `$FLOW` is the documented alias of `$FLOW_ID`, resolved here as the original does.
  const key = expr.root === '$FLOW' ? '$FLOW_ID' : expr.root;
  const steps = expr.segments.map((segment) =>
    segment.type === 'index'
      ? new Step(null, segment.index)
      : new Step(ROOT_FIELDS.has(segment.name) ? `$${segment.name}` : segment.name, 0),
  );
  if (steps.length === 0 && ENGINE_MAPS.has(key)) {
    // The engine keeps writing into `$NODE`/`$VISITS`: a bare read gets a snapshot, else a
    // node result holding the live map would contain itself once recorded (a cycle).
    return (scope, local) => {
      const context = local ?? scope.context;
      if (!Object.hasOwn(context, key)) throw missingRoot(expr.root, context, source);
      const map = context[key];
      return isRecord(map) ? { ...map } : (map ?? null);
    };
  }
  // Strings under `$GLOBAL` come from the flow document; every other root holds data.
  const dataRoot = key !== '$GLOBAL';
  return (scope, local, depth, meter) => {
    const context = local ?? scope.context;
    if (!Object.hasOwn(context, key)) throw missingRoot(expr.root, context, source);
    const reevaluate = meter.nestedData || depth > 0 || !dataRoot ? nested : null;
    return walk(context[key] ?? null, steps, 0, scope, depth, source, reevaluate, meter);
  };
}

const ENGINE_MAPS: ReadonlySet<string> = new Set(['$NODE', '$VISITS']);

function walk(
  start: unknown,
  steps: readonly Step[],
  from: number,
  scope: EvaluationScope,
  depth: number,
  source: string,
  nested: NestedEvaluator | null,
  meter: EvaluationMeter,
): MaybePromise<unknown> {
  let value = start;
  for (let i = from; i < steps.length; i++) {
    const step = steps[i] as Step;
    if (step.field === null) {
      value = indexInto(value, step.index, source);
    } else if (!isRecord(value)) {
      value = null;
    } else {
      const holder = value;
      // Read first, then confirm it is an own property: a miss costs no hasOwn call.
      value = holder[step.field];
      if (value === undefined || !Object.hasOwn(holder, step.field)) value = null;
      if (nested !== null && typeof value === 'string' && isEvaluable(value)) {
        const result = nested(value, holder, scope, depth + 1, meter);
        if (isPromiseLike(result)) {
          const next = i + 1;
          return Promise.resolve(result).then((resolved) =>
            walk(resolved, steps, next, scope, depth, source, nested, meter),
          );
        }
        value = result;
      }
    }
  }
  return value;
}

function indexInto(value: unknown, index: number, source: string): unknown {
  if (Array.isArray(value)) {
    const position = resolveIndex(index, value.length);
    if (position === undefined) throw badIndex(index, `an array of length ${value.length}`, source);
    return (value[position] as unknown) ?? null;
  }
  if (typeof value === 'string') {
    const chars = hasSurrogates(value) ? codePoints(value) : value;
    const position = resolveIndex(index, chars.length);
    if (position === undefined) throw badIndex(index, `a string of length ${chars.length}`, source);
    return chars[position];
  }
  throw new ExpressionError(
    `cannot index ${valueKind(value)} with [${index}] in ${JSON.stringify(source)}`,
    source,
  );
}

function badIndex(index: number, what: string, source: string): ExpressionError {
  return new ExpressionError(
    `index [${index}] is out of range for ${what} in ${JSON.stringify(source)}`,
    source,
  );
}

function missingRoot(root: string, context: Context, source: string): ExpressionError {
  const roots = Object.keys(context).filter((key) => key.startsWith('$'));
  const available = roots.length > 0 ? roots.join(', ') : '(none)';
  return new ExpressionError(
    `unknown root ${root} in ${JSON.stringify(source)}; available roots: ${available}`,
    source,
  );
}

function compileCall(expr: CallExpr, source: string, nested: NestedEvaluator): Compiled {
  const name = expr.name;
  const args = expr.args.map((arg) => compileExpression(arg, source, nested));
  const count = args.length;
  // Lookup happens at call time (§5.5); this one-entry cache only remembers whether the function
  // found last time is a built-in, which is a WeakSet lookup otherwise.
  let lastSeen: RegisteredFunction | undefined;
  let lastIsBuiltin = false;
  return (scope, local, depth, meter) => {
    const registered = scope.functions.get(name);
    if (registered === undefined) throw unknownFunction(name, scope.functions);
    if (registered !== lastSeen) {
      lastSeen = registered;
      lastIsBuiltin = isBuiltin(registered.fn);
    }
    const builtin = lastIsBuiltin;
    if (registered.sideEffects) scope.beforeMutation?.();
    const values = new Array<unknown>(count);
    for (let i = 0; i < count; i++) {
      const value = (args[i] as Compiled)(scope, local, depth, meter);
      if (isPromiseLike(value)) {
        return finishArguments(value, i, values, args, scope, local, depth, meter).then((all) =>
          invokeFunction(registered, builtin, all, scope, meter),
        );
      }
      values[i] = value;
    }
    return invokeFunction(registered, builtin, values, scope, meter);
  };
}

/** Arguments stay strictly left to right once one of them is asynchronous. */
async function finishArguments(
  pending: PromiseLike<unknown>,
  from: number,
  values: unknown[],
  args: readonly Compiled[],
  scope: EvaluationScope,
  local: Context | undefined,
  depth: number,
  meter: EvaluationMeter,
): Promise<unknown[]> {
  values[from] = await pending;
  for (let i = from + 1; i < args.length; i++)
    values[i] = await (args[i] as Compiled)(scope, local, depth, meter);
  return values;
}
