import type { Context } from '../expression/scope.js';
import type { LoadedNode } from '../flow/flow.js';
import type { Execution } from './execution.js';

/** One executed node (docs/flow-format.md §6.6). `context` is the checkpoint after it. */
export interface Step {
  nodeId: string | null;
  type: string | null;
  name: string | null;
  result: unknown;
  /** The target id for branching nodes, else "". */
  branch: string;
  isEnd: boolean;
  isSuspend: boolean;
  executionId: string;
  context: Context;
}

export function makeStep(
  execution: Execution,
  node: LoadedNode,
  result: unknown,
  flags: { isEnd?: boolean; isSuspend?: boolean; branch?: string } = {},
): Step {
  const branch =
    flags.branch ?? (node.nodeType.branching && typeof result === 'string' ? result : '');
  return {
    nodeId: node.def.id,
    type: node.def.type,
    name: node.def.name,
    result,
    branch,
    isEnd: flags.isEnd ?? node.def.type === 'end',
    isSuspend: flags.isSuspend ?? false,
    executionId: execution.executionId,
    context: execution.snapshot(),
  };
}

/** The escape hatch's final step: `nodeId: null`, the `$NODE` map as result (docs/flow-format.md §6.4). */
export function syntheticEndStep(execution: Execution): Step {
  return {
    nodeId: null,
    type: 'end',
    name: 'end',
    result: { ...execution.nodeResults },
    branch: '',
    isEnd: true,
    isSuspend: false,
    executionId: execution.executionId,
    context: execution.snapshot(),
  };
}
