import type { LoadedNode } from '../flow/flow.js';
import type { HandlerDef } from '../flow/node-type.js';
import { FlowError, FlowResultError } from '../flow-errors.js';
import { isPromiseLike } from '../util/maybe-promise.js';
import { Budget, type BudgetAbort, isBudgetAbort, raceAbort, sleep } from './budget.js';
import type { Execution } from './execution.js';
import { asFlowError, errorResult, flowCancelled, flowTimeout, nodeExecutionError, nodeTimeout } from './flow-failures.js';
import { hookError } from './hooks.js';
import { createNodeContext } from './node-context.js';

/**
 * flows.md §6.2: hooks → cancellation check → attempts with retries and timeouts → record →
 * onNodeEnd. Returns the recorded result; throws a FlowError (or a BudgetAbort owned by an
 * enclosing node, which must pass through untouched).
 */
export async function runNode(execution: Execution, node: LoadedNode): Promise<unknown> {
  const id = node.def.id;
  await execution.fire('onNodeStart', { node: id });
  let result: unknown;
  try {
    if (execution.budget.signal.aborted) throw execution.budget.signal.reason;
    result = await attempts(execution, node);
  } catch (error) {
    const failure = isForeignAbort(execution, error) ? error : toFlowError(execution, node, error);
    if (failure instanceof FlowError) await execution.fire('onNodeEnd', { node: id, error: hookError(failure) });
    throw failure;
  }
  execution.record(node, result);
  await execution.fire('onNodeEnd', { node: id, result });
  return result;
}

async function attempts(execution: Execution, node: LoadedNode): Promise<unknown> {
  const { def } = node;
  const visit = execution.visitsOf(def.id) + 1;
  const flowBudget = execution.budget;
  if (flowBudget.deadline !== null && Date.now() >= flowBudget.deadline) flowBudget.expire();
  const budget = def.timeoutMs === null ? flowBudget : new Budget(flowBudget, Date.now() + def.timeoutMs, 'node');
  try {
    return await attemptLoop(execution, node, budget, visit);
  } catch (error) {
    const abort = budget.signal.aborted ? budget.signal.reason : error;
    if (isBudgetAbort(abort) && abort.kind === 'timeout' && (abort.budget === budget || abort.budget === flowBudget)) {
      return handleTimeout(node, abort.budget === flowBudget, def.timeoutMs);
    }
    throw isBudgetAbort(abort) ? abort : error;
  } finally {
    if (budget !== flowBudget) budget.dispose();
  }
}

async function attemptLoop(execution: Execution, node: LoadedNode, budget: Budget, visit: number): Promise<unknown> {
  const handler = node.def.errorHandler;
  for (let attempt = 1; ; attempt++) {
    budget.check();
    try {
      const ctx = createNodeContext(execution, node, budget, visit, attempt);
      const value = node.run(ctx);
      const result = isPromiseLike(value) ? await raceAbort(Promise.resolve(value), budget.signal) : value;
      // A node that ignored its signal may finish late: its result is discarded (§6.2).
      if (budget.signal.aborted) throw budget.signal.reason;
      return result;
    } catch (error) {
      if (budget.signal.aborted) throw budget.signal.reason;
      if (!isRetryable(error) || attempt > handler.retryTimes) return handleError(node, handler, error);
      const delay = retryDelay(handler, attempt + 1);
      if (delay > 0) await sleep(delay, budget.signal);
      execution.log.debug({ node: node.def.id, attempt: attempt + 1 }, 'retrying node');
    }
  }
}

/** Timeouts, `end` errors and cancellation are never retried (flows.md §7.4). */
function isRetryable(error: unknown): boolean {
  return !(error instanceof FlowResultError) && !isBudgetAbort(error);
}

/** The wait before attempt k (k ≥ 2) is `retryDelay × backoff^(k−2)`. */
function retryDelay(handler: HandlerDef, nextAttempt: number): number {
  if (handler.retryDelayMs === null) return 0;
  return handler.retryDelayMs * handler.retryBackoff ** (nextAttempt - 2);
}

function handleError(node: LoadedNode, handler: HandlerDef, error: unknown): unknown {
  if (error instanceof FlowResultError || isBudgetAbort(error)) throw error;
  switch (handler.strategy) {
    case 'continue':
      return null;
    case 'continue-with':
      return handler.defaultValue;
    case 'abort':
      throw nodeExecutionError(node, handler.code, handler.message, error);
  }
}

function handleTimeout(node: LoadedNode, flowBinding: boolean, budgetMs: number | null): unknown {
  const handler = node.def.timeoutHandler;
  switch (handler.strategy) {
    case 'continue':
      return null;
    case 'continue-with':
      return handler.defaultValue;
    case 'abort':
      throw nodeTimeout(node, flowBinding, handler.message, budgetMs);
  }
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
