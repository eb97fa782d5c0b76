import type { LoadedNode } from '../flow/flow.js';
import { FlowError } from '../errors/flow-errors.js';
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

/** How long the nodes of this process may run before timers and I/O get a turn (ms). */
const YIELD_EVERY_MS = 10;
/** The clock is read once per this many nodes. */
const NODES_PER_CLOCK_READ = 32;
let nodesSinceClockRead = 0;
let yieldAt = 0;

/**
 * Nodes whose work is synchronous (assignments, conditions) continue through microtasks only:
 * a long loop of them would hold the event loop, so a cancel signal, a timer or a worker's
 * lease renewal could not run until it ended. Every ~10 ms of such work yields one turn.
 */
function turnIfDue(): Promise<void> | null {
  if (++nodesSinceClockRead < NODES_PER_CLOCK_READ) return null;
  nodesSinceClockRead = 0;
  const now = performance.now();
  if (now < yieldAt) return null;
  yieldAt = now + YIELD_EVERY_MS;
  return new Promise((resolve) => setImmediate(resolve));
}

/** Run mode (docs/flow-format.md §6.3): walks from the entry node to an end; returns the flow result. */
export async function walk(execution: Execution): Promise<unknown> {
  let node = entryNode(execution);
  for (;;) {
    const turn = turnIfDue();
    if (turn) await turn;
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
