import type { Flow } from '../flow/flow.js';
import type { ExecutionMode } from '../flow/node-type.js';
import { checkDepth } from '../util/value-depth.js';
import { Budget } from './budget.js';
import { resolveOptions, type EngineOptions, type ResolvedOptions } from './engine-options.js';
import { Execution, initialContext } from './execution.js';
import { runExecution } from './run-loop.js';
import type { Context } from '../expression/scope.js';

/** Top-level input must be a plain object or absent (docs/flow-format.md §6.1). */
export function checkTopLevelInput(input: unknown): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new TypeError(
      `flow input must be a plain object, got ${Array.isArray(input) ? 'an array' : typeof input}`,
    );
  }
  return input as Record<string, unknown>;
}

/** The root budget: the smaller of the flow's and the caller's budgets, cancelled by `signal`. */
export function rootBudget(flow: Flow, options: ResolvedOptions, applyDeadline: boolean): Budget {
  const limits = applyDeadline
    ? [flow.timeoutMs, options.timeoutMs].filter((v): v is number => v !== null)
    : [];
  const { clock } = options;
  const deadline = limits.length > 0 ? clock.now() + Math.min(...limits) : null;
  const budget = new Budget(null, deadline, 'flow', [], clock);
  if (options.signal) budget.cancelOn(options.signal);
  return budget;
}

export function newTopLevelExecution(
  flow: Flow,
  input: unknown,
  engineOptions: EngineOptions | undefined,
  mode: ExecutionMode,
): Execution {
  const options = resolveOptions(engineOptions);
  const checked = checkTopLevelInput(input);
  checkDepth(checked, options.limits.maxDepth, '$INPUT');
  const context = initialContext(flow, options, engineOptions?.executionId, checked);
  return new Execution(
    flow,
    options,
    mode,
    context,
    rootBudget(flow, options, mode !== 'distributed'),
    runExecution,
  );
}

export function restoredExecution(
  flow: Flow,
  context: Context,
  engineOptions: EngineOptions | undefined,
): Execution {
  const options = resolveOptions(engineOptions);
  const budget = rootBudget(flow, options, false);
  return new Execution(flow, options, 'distributed', context, budget, runExecution);
}
