import type { LoadedNode } from '../flow/flow.js';
import { FlowError } from '../flow-errors.js';
import { isBudgetAbort } from './budget.js';
import type { Execution } from './execution.js';
import { asFlowError, flowCancelled, flowTimeout, nodeNotFound } from './flow-failures.js';
import { hookError } from './hooks.js';
import { runNode } from './run-node.js';
import { successor } from './successor.js';

/** The entry node (docs/flow-format.md §2.2): the first `start`, or node_not_found. */
export function entryNode(execution: Execution): LoadedNode {
  const start = execution.flow.startNode;
  if (!start)
    throw nodeNotFound(null, `flow '${execution.flow.id ?? '(unnamed)'}' has no start node`);
  return start;
}

/** Between nodes: the flow budget is checked (docs/flow-format.md §6.3). */
export function checkFlowBudget(execution: Execution, node: LoadedNode): void {
  const { budget } = execution;
  if (budget.deadline !== null && budget.clock.now() >= budget.deadline)
    throw flowTimeout(execution.flow.id, node.def.id);
}

/** Run mode (docs/flow-format.md §6.3): walks from the entry node to an end; returns the flow result. */
export async function walk(execution: Execution): Promise<unknown> {
  let node = entryNode(execution);
  for (;;) {
    const result = await runNode(execution, node);
    if (node.def.type === 'end') return result;
    checkFlowBudget(execution, node);
    const next = successor(execution, node, result);
    if (next.kind !== 'node') return next.kind === 'escape' ? { ...execution.nodeResults } : result;
    node = next.node;
  }
}

/**
 * Converts what escaped a walk into the FlowError the caller sees. A BudgetAbort that belongs
 * to an enclosing node passes through untouched: that node's timeoutHandler decides.
 */
export function settleFailure(execution: Execution, error: unknown): unknown {
  if (error instanceof FlowError) return error;
  if (isBudgetAbort(error)) {
    if (error.budget !== execution.budget) return error;
    const last = execution.context.$LAST_NODE as string | null;
    return error.kind === 'timeout' ? flowTimeout(execution.flow.id, last) : flowCancelled(last);
  }
  return asFlowError(error, null);
}

/** A run-mode execution with its flow hooks; used for the top level and for child executions. */
export async function runExecution(execution: Execution): Promise<unknown> {
  await execution.fire('onFlowStart', {});
  try {
    const result = await walk(execution);
    await execution.fire('onFlowEnd', { result });
    return result;
  } catch (error) {
    const failure = settleFailure(execution, error);
    if (failure instanceof FlowError)
      await execution.fire('onFlowEnd', { error: hookError(failure) });
    throw failure;
  } finally {
    execution.budget.dispose();
  }
}

export function runChildExecution(child: Execution): Promise<unknown> {
  return runExecution(child);
}
