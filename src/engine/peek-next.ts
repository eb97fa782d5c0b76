import type { Context } from '../expression/scope.js';
import type { Flow } from '../flow/flow.js';
import { targetOf } from './successor.js';

/**
 * Which node the next `runStep` from this checkpoint will run (the first call: the entry
 * node's successor), without running anything. The durable worker counts the attempt of
 * that node before running it, so a node that keeps killing its worker is caught.
 */
export function peekNextNode(flow: Flow, context: Context | null | undefined): string | null {
  const lastId = context?.$LAST_NODE;
  if (typeof lastId !== 'string') {
    const start = flow.startNode;
    return start ? targetAfter(flow, start.def.id, null) : null;
  }
  return targetAfter(flow, lastId, context?.$BRANCH ?? null);
}

function targetAfter(flow: Flow, nodeId: string, branch: unknown): string | null {
  const node = flow.nodesById.get(nodeId);
  if (!node || node.def.type === 'end') return null;
  return targetOf(node, branch);
}
