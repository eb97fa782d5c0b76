import { classifyReplay } from './analysis/replayability.js';
import type { Flow } from './flow.js';
import { nodeEdges, type FlowEdge } from './node-edges.js';

/** A node as a graph draws it; `missing`: an id an edge names but no node has (type null). */
export interface ShapeNode {
  readonly id: string;
  readonly type: string | null;
  readonly missing: boolean;
  /**
   * What a retry or replay runs again (docs/durable-runtime.md): true when a durable worker may
   * recompute the node after a crash, false when its result is stored before the next node
   * runs; null for a node that did not load (or is missing).
   */
  readonly replayable: boolean | null;
  /** Why it is effectful, for people; null when replayable or unknown. */
  readonly effect: string | null;
}

/** A flow's nodes and the edges the engine can follow between them, for drawing. */
export interface FlowShape {
  readonly nodes: ShapeNode[];
  readonly edges: FlowEdge[];
}

/**
 * A flow as a graph draws it (the API's `graph`), from its own nodes and their edges
 * (node-edges.ts). Nodes in document order, one per id, typed and linked as the engine looks
 * the id up (the last definition of a duplicate), then a `missing` node per target naming no
 * node. A flow loaded partly (loadFlowPartly) is drawn too: a node that did not load shows with
 * its `id` and `type` as written, without edges.
 */
export function flowShape(flow: Flow): FlowShape {
  const loadedAt = new Map(flow.nodes.map((node) => [node.index, node]));
  const raw: unknown[] = Array.isArray(flow.document.nodes) ? flow.document.nodes : [];
  const nodes: ShapeNode[] = [];
  const edges: FlowEdge[] = [];
  const seen = new Set<string>();
  const replay = classifyReplay(flow);
  raw.forEach((entry, index) => {
    const id = loadedAt.get(index)?.def.id ?? rawField(entry, 'id');
    if (id === null || seen.has(id)) return;
    seen.add(id);
    const node = flow.nodesById.get(id);
    const verdict = node ? replay.get(id) : undefined;
    nodes.push({
      id,
      type: node?.def.type ?? rawField(entry, 'type'),
      missing: false,
      replayable: verdict?.replayable ?? null,
      effect: verdict?.reason ?? null,
    });
    if (node) edges.push(...nodeEdges(node));
  });
  for (const edge of edges)
    if (!seen.has(edge.to)) {
      seen.add(edge.to);
      nodes.push({ id: edge.to, type: null, missing: true, replayable: null, effect: null });
    }
  return { nodes, edges };
}

/** A node's `id` or `type` as written (an id may be a YAML number), when it did not load. */
function rawField(entry: unknown, key: 'id' | 'type'): string | null {
  if (typeof entry !== 'object' || entry === null) return null;
  const value = (entry as Record<string, unknown>)[key];
  if (typeof value === 'number' && key === 'id') return String(value);
  return typeof value === 'string' && value !== '' ? value : null;
}
