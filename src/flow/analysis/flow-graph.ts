import type { Flow, LoadedNode } from '../flow.js';
import { nodeEdges } from '../node-edges.js';

/** The ids a node can hand over to (its edges, node-edges.ts); ids naming no node included. */
export function successorIds(node: LoadedNode): string[] {
  return nodeEdges(node).map((edge) => edge.to);
}

/**
 * Which node can run after which, over the ids the engine looks up (`nodesById`, so a
 * duplicate id's earlier definition is no vertex). Edges to missing ids are dropped.
 */
export class FlowGraph {
  private readonly successors = new Map<string, Set<string>>();
  private readonly predecessors = new Map<string, Set<string>>();

  constructor(flow: Flow, extraEdges: ReadonlyMap<string, readonly string[]> = new Map()) {
    for (const id of flow.nodesById.keys()) {
      this.successors.set(id, new Set());
      this.predecessors.set(id, new Set());
    }
    for (const [id, node] of flow.nodesById) {
      for (const to of [...successorIds(node), ...(extraEdges.get(id) ?? [])]) this.addEdge(id, to);
    }
  }

  private addEdge(from: string, to: string): void {
    if (!this.successors.has(to)) return;
    this.successors.get(from)?.add(to);
    this.predecessors.get(to)?.add(from);
  }

  /** `id` and every node some path from it reaches. */
  reachableFrom(id: string): Set<string> {
    const seen = walk([id], this.successors);
    seen.add(id);
    return seen;
  }

  /** Every node with a path to `id` (`id` itself only when it sits on a cycle). */
  reaching(id: string): Set<string> {
    return walk([id], this.predecessors);
  }
}

/** The nodes reached from `from` in one or more steps. */
function walk(
  from: readonly string[],
  edges: ReadonlyMap<string, ReadonlySet<string>>,
): Set<string> {
  const seen = new Set<string>();
  const stack = [...from];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    for (const next of edges.get(id) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return seen;
}
