import type { FlowDocument } from '../api/types';

export interface GraphNode {
  id: string;
  type: string;
  /** A target named by an edge but absent from the document (an `unknown_target` mistake). */
  missing: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string | null;
}

export interface FlowShape {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : null;

/**
 * The nodes and edges of a flow document, as the engine follows them (src/nodes/control):
 * `next` for most nodes; `if`: `next` (default "true") and `else_next` (default "false");
 * `switch`: each branch's `next` (or its `name`); `case`: each case's `id` and `default`
 * (default "default"). A target that names no node becomes a `missing` node.
 */
export function flowShape(document: FlowDocument | null | undefined): FlowShape {
  const raw = Array.isArray(document?.nodes) ? document.nodes : [];
  const nodes: GraphNode[] = [];
  const seen = new Set<string>();
  for (const node of raw) {
    if (!node || typeof node !== 'object') continue;
    const id = text(node.id);
    if (id === null || seen.has(id)) continue;
    seen.add(id);
    nodes.push({ id, type: text(node.type) ?? '?', missing: false });
  }
  const edges: GraphEdge[] = [];
  for (const node of raw) {
    if (!node || typeof node !== 'object') continue;
    const id = text(node.id);
    if (id === null) continue;
    for (const edge of edgesOf(node)) edges.push({ from: id, ...edge });
  }
  for (const edge of edges)
    if (!seen.has(edge.to)) {
      seen.add(edge.to);
      nodes.push({ id: edge.to, type: 'missing', missing: true });
    }
  return { nodes, edges };
}

function edgesOf(node: Record<string, unknown>): Array<{ to: string; label: string | null }> {
  switch (node.type) {
    case 'if':
      return [
        { to: text(node.next) ?? 'true', label: 'true' },
        { to: text(node.else_next) ?? 'false', label: 'false' },
      ];
    case 'switch':
      return (Array.isArray(node.branches) ? node.branches : []).flatMap((branch: unknown) => {
        if (!branch || typeof branch !== 'object') return [];
        const b = branch as Record<string, unknown>;
        const to = text(b.next) ?? text(b.name);
        const label = b.isDefault === true || b.is_default === true ? 'default' : text(b.name);
        return to === null ? [] : [{ to, label }];
      });
    case 'case': {
      const cases = (Array.isArray(node.cases) ? node.cases : []).flatMap((c: unknown) => {
        if (!c || typeof c !== 'object') return [];
        const entry = c as Record<string, unknown>;
        const to = text(entry.id);
        return to === null ? [] : [{ to, label: `= ${JSON.stringify(entry.value ?? null)}` }];
      });
      return [...cases, { to: text(node.default) ?? 'default', label: 'default' }];
    }
    default: {
      const next = text(node.next);
      return next === null ? [] : [{ to: next, label: null }];
    }
  }
}
