import type { LoadedNode } from '../flow/flow.js';
import type { Execution } from './execution.js';
import { flowError, nodeNotFound } from './flow-failures.js';

export type Successor =
  | { kind: 'end' }
  | { kind: 'node'; node: LoadedNode }
  /** The escape hatch of docs/flow-format.md §2.2: the flow ends successfully with the `$NODE` map. */
  | { kind: 'escape' };

const END: Successor = { kind: 'end' };
const ESCAPE: Successor = { kind: 'escape' };

/** docs/flow-format.md §2.2: where the walk goes after `node` produced `result`. */
export function successor(execution: Execution, node: LoadedNode, result: unknown): Successor {
  if (node.def.type === 'end') return END;
  const targetId = targetOf(node, result);
  if (targetId !== null) {
    const next = execution.flow.nodesById.get(targetId);
    if (!next) throw nodeNotFound(targetId);
    return { kind: 'node', node: next };
  }
  const strategy = node.def.errorHandler.strategy;
  if (strategy === 'continue' || strategy === 'continue-with') {
    execution.warn(
      `node '${node.def.id}' has no successor; its errorHandler '${strategy}' ends the flow with the $NODE map`,
    );
    return ESCAPE;
  }
  throw flowError(
    node.targets
      ? `node '${node.def.id}' matched no branch (result: ${JSON.stringify(result) ?? 'undefined'})`
      : `node '${node.def.id}' has no 'next' and is not an end node`,
    node.def.id,
  );
}

/**
 * The id `node` hands over to after producing `result` (a branch name for branching nodes),
 * or null when it names none. The one rule for the engine's walk and for the worker's
 * look-ahead (Stepper.nextNodeId), so the two cannot disagree.
 */
export function targetOf(node: LoadedNode, result: unknown): string | null {
  if (node.targets === null) return node.def.next;
  return typeof result === 'string' && result !== '' && node.targets.has(result) ? result : null;
}
