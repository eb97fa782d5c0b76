import type { LoadedNode } from '../flow.js';
import type { FlowIssue } from './flow-issue.js';
import { pathTo } from './flow-scope.js';

/**
 * docs/flow-format.md §7.4: a negative `retryTimes` allows no attempt, so the node never runs and
 * its result is the strategy's fallback (null, or `defaultValue` for `continue-with`). Valid,
 * as in the original, but almost certainly not what the author meant.
 */
export function handlerIssues(
  node: LoadedNode,
  raw: Record<string, unknown>,
  path: string,
): FlowIssue[] {
  const { retryTimes, strategy } = node.def.errorHandler;
  if (retryTimes >= 0) return [];
  const key =
    raw.errorHandler !== undefined && raw.errorHandler !== null ? 'errorHandler' : 'error_handler';
  const result = strategy === 'continue-with' ? 'its defaultValue' : 'null';
  return [
    {
      severity: 'warning',
      code: 'node_warning',
      path: pathTo(path, key, 'retryTimes'),
      nodeId: node.def.id,
      message: `retryTimes is negative (${retryTimes}): node '${node.def.id}' is never run and its result is ${result}`,
    },
  ];
}
