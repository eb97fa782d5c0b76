import type { LoadedNode } from '../flow.js';
import { closestName } from './closest-name.js';
import type { RootRead } from './expression-checker.js';
import type { FlowGraph } from './flow-graph.js';
import type { FlowIssue } from './flow-issue.js';
import { type FlowScope, idInScopeChain, idsInScopeChain } from './flow-scope.js';

/**
 * `$NODE.<id>` holds a result only once that node ran. Warns when `id` is no node at all, or
 * when no path from start passes through `id` before reaching the reader. Conservative: a node
 * reading itself (an http `output`, a loop around) is fine, ids of enclosing flows are left to
 * parent fallback, and readers nothing reaches are already reported as unreachable.
 */
export function nodeReadIssues(
  scope: FlowScope,
  graph: FlowGraph,
  reachable: ReadonlySet<string> | null,
  reader: LoadedNode,
  reads: readonly RootRead[],
): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const readerId = reader.def.id;
  const ids = scope.flow.nodesById;
  const seen = new Set<string>();
  let upstream: ReadonlySet<string> | undefined;
  for (const { name, path } of reads) {
    const key = `${name}\u0000${path}`;
    if (name === readerId || seen.has(key)) continue;
    seen.add(key);
    if (!ids.has(name)) {
      if (scope.enclosing !== null && idInScopeChain(scope.enclosing, name)) continue;
      const suggestion = closestName(name, idsInScopeChain(scope));
      issues.push({
        severity: 'warning',
        code: 'unknown_node_reference',
        path,
        nodeId: readerId,
        message:
          `$NODE.${name} always reads null: this flow has no node '${name}'` +
          (suggestion === undefined ? '' : `; did you mean '${suggestion}'?`),
        ...(suggestion === undefined ? {} : { suggestion }),
      });
      continue;
    }
    if (reachable === null || !reachable.has(readerId)) continue;
    upstream ??= graph.reaching(readerId);
    if (reachable.has(name) && upstream.has(name)) continue;
    issues.push({
      severity: 'warning',
      code: 'node_not_upstream',
      path,
      nodeId: readerId,
      message: `$NODE.${name} reads null here: no path from start runs '${name}' before '${readerId}'`,
    });
  }
  return issues;
}
