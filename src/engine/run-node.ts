import type { LoadedNode } from '../flow/flow.js';
import type { HandlerDef } from '../flow/node-type.js';
import { FlowError, FlowResultError } from '../errors/flow-errors.js';
import { isPromiseLike } from '../util/maybe-promise.js';
import { copyValue } from '../util/copy-value.js';
import { Budget, type BudgetAbort, isBudgetAbort, raceAbort, sleep } from './budget.js';
import type { Execution } from './execution.js';
import {
  asFlowError,
  errorResult,
  flowCancelled,
  flowTimeout,
  nodeExecutionError,
  nodeTimeout,
} from './flow-failures.js';
import { hookError } from './hooks.js';
import { shouldRetry } from './retry-policy.js';
import { createNodeContext } from './node-context.js';

/**
 * docs/flow-format.md §6.2: hooks → cancellation check → attempts with retries and timeouts → record →
 * onNodeEnd. Returns the recorded result; throws a FlowError (or a BudgetAbort owned by an
 * enclosing node, which must pass through untouched).
 */
export async function runNode(execution: Execution, node: LoadedNode): Promise<unknown> {
  const id = node.def.id;
  execution.countStep(id);
  if (execution.hasHook('onNodeStart')) await execution.fire('onNodeStart', { node: id });
  const hooks = execution.hasHook('onNodeEnd');
  let result: unknown;
  try {
    execution.budget.throwIfAborted();
    result = attempts(execution, node);
    if (isPromiseLike(result)) result = await result;
  } catch (error) {
    const failure = isForeignAbort(execution, error) ? error : toFlowError(execution, node, error);
    if (hooks && failure instanceof FlowError)
      await execution.fire('onNodeEnd', { node: id, error: hookError(failure) });
    throw failure;
  }
  execution.record(node, result);
  if (hooks) await execution.fire('onNodeEnd', { node: id, result });
  return result;
}

/**
 * The fast path: a node without its own timeout whose first attempt returns synchronously
 * costs no promise, no timer and no listener. Everything else takes the general path.
 */
function attempts(execution: Execution, node: LoadedNode): unknown {
  const { def } = node;
  const visit = execution.visitsOf(def.id) + 1;
  const flowBudget = execution.budget;
  // No budget left at the start is a FlowTimeout, not this node's timeout (docs/flow-format.md §6.3).
  flowBudget.check();
  if (def.errorHandler.retryTimes < 0) return notAttempted(execution, node);
  if (def.timeoutMs === null) {
    let value: unknown;
    try {
      value = node.run(createNodeContext(execution, node, flowBudget, visit, 1));
    } catch (error) {
      const reason = flowBudget.reason;
      if (reason) return settleAttempts(node, flowBudget, flowBudget, () => Promise.reject(reason));
      const decision = shouldRetry(error, def.errorHandler, 1);
      if (!decision.retry) return handleError(node, def.errorHandler, error);
      return settleAttempts(node, flowBudget, flowBudget, async () => {
        await waitBeforeRetry(execution, node, flowBudget, 2, decision.delayMs);
        return attemptLoop(execution, node, flowBudget, visit, 2);
      });
    }
    if (!isPromiseLike(value)) return value;
    return settleAttempts(node, flowBudget, flowBudget, () =>
      awaitAttempt(execution, node, flowBudget, visit, value),
    );
  }
  const budget = new Budget(flowBudget, flowBudget.clock.now() + def.timeoutMs, 'node');
  return settleAttempts(node, budget, flowBudget, () =>
    attemptLoop(execution, node, budget, visit, 1),
  ).finally(() => budget.dispose());
}

/** Maps what escaped the attempts: this node's (or its flow's) timeout goes to its timeoutHandler. */
async function settleAttempts(
  node: LoadedNode,
  budget: Budget,
  flowBudget: Budget,
  work: () => Promise<unknown>,
): Promise<unknown> {
  try {
    return await work();
  } catch (error) {
    const abort = budget.aborted ? budget.reason : error;
    if (
      isBudgetAbort(abort) &&
      abort.kind === 'timeout' &&
      (abort.budget === budget || abort.budget === flowBudget)
    ) {
      return handleTimeout(node, abort.budget === flowBudget, node.def.timeoutMs);
    }
    throw isBudgetAbort(abort) ? abort : error;
  }
}

/** Finishes the first attempt that returned a promise, retrying on failure. */
async function awaitAttempt(
  execution: Execution,
  node: LoadedNode,
  budget: Budget,
  visit: number,
  pending: PromiseLike<unknown>,
): Promise<unknown> {
  try {
    const result = await raceAbort(Promise.resolve(pending), budget);
    budget.throwIfAborted();
    return result;
  } catch (error) {
    budget.throwIfAborted();
    const decision = shouldRetry(error, node.def.errorHandler, 1);
    if (!decision.retry) return handleError(node, node.def.errorHandler, error);
    await waitBeforeRetry(execution, node, budget, 2, decision.delayMs);
    return attemptLoop(execution, node, budget, visit, 2);
  }
}

async function attemptLoop(
  execution: Execution,
  node: LoadedNode,
  budget: Budget,
  visit: number,
  firstAttempt: number,
): Promise<unknown> {
  const handler = node.def.errorHandler;
  for (let attempt = firstAttempt; ; attempt++) {
    budget.check();
    try {
      const value = node.run(createNodeContext(execution, node, budget, visit, attempt));
      const result = isPromiseLike(value) ? await raceAbort(Promise.resolve(value), budget) : value;
      // A node that ignored its signal may finish late: its result is discarded (§6.2).
      budget.throwIfAborted();
      return result;
    } catch (error) {
      budget.throwIfAborted();
      const decision = shouldRetry(error, handler, attempt);
      if (!decision.retry) return handleError(node, handler, error);
      await waitBeforeRetry(execution, node, budget, attempt + 1, decision.delayMs);
    }
  }
}

async function waitBeforeRetry(
  execution: Execution,
  node: LoadedNode,
  budget: Budget,
  nextAttempt: number,
  delayMs: number,
): Promise<void> {
  if (delayMs > 0) await sleep(delayMs, budget);
  execution.log.debug({ node: node.def.id, attempt: nextAttempt }, 'retrying node');
}

/**
 * `retryTimes` below zero allows no attempt at all (docs/flow-format.md §7.4): the original's
 * attempt loop runs `retryTimes + 1` times and then falls back to the strategy's value, which is
 * null for `abort` too: no error ever happened.
 */
function notAttempted(execution: Execution, node: LoadedNode): unknown {
  const handler = node.def.errorHandler;
  execution.warn(
    `node '${node.def.id}' was not run: its errorHandler.retryTimes (${handler.retryTimes}) allows no attempt`,
  );
  return fallbackValue(handler);
}

function handleError(node: LoadedNode, handler: HandlerDef, error: unknown): unknown {
  if (error instanceof FlowResultError || isBudgetAbort(error)) throw error;
  if (handler.strategy === 'abort')
    throw nodeExecutionError(node, handler.code, handler.message, error);
  return fallbackValue(handler);
}

function handleTimeout(node: LoadedNode, flowBinding: boolean, budgetMs: number | null): unknown {
  const handler = node.def.timeoutHandler;
  if (handler.strategy === 'abort') throw nodeTimeout(node, flowBinding, handler.message, budgetMs);
  return fallbackValue(handler);
}

/** A handler's value in the node's place: null for `continue` (and `abort`, never run). */
function fallbackValue(handler: Pick<HandlerDef, 'strategy' | 'defaultValue'>): unknown {
  // A copy: the definition's own object is every run's.
  return handler.strategy === 'continue-with' ? copyValue(handler.defaultValue) : null;
}

/** A BudgetAbort whose budget belongs to an enclosing execution: not ours to handle, pass it up. */
function isForeignAbort(execution: Execution, error: unknown): error is BudgetAbort {
  if (!isBudgetAbort(error)) return false;
  for (let b = execution.budget.parent; b; b = b.parent) if (b === error.budget) return true;
  return false;
}

function toFlowError(execution: Execution, node: LoadedNode, error: unknown): unknown {
  if (error instanceof FlowError) return error;
  if (error instanceof FlowResultError) return errorResult(node.def.id, error);
  if (isBudgetAbort(error)) {
    if (error.kind === 'timeout') return flowTimeout(execution.flow.id, node.def.id);
    return flowCancelled(node.def.id);
  }
  return asFlowError(error, node.def.id);
}
