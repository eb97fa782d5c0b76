import { Graph, layout } from '@dagrejs/dagre';
import type { FlowGraph, GraphEdge, GraphNode } from '../api/types';

export interface PlacedNode {
  id: string;
  type: string;
  missing: boolean;
  /** False: effectful (stored before the next node runs); null when it did not load. */
  replayable: boolean | null;
  effect: string | null;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  label: string | null;
  points: Point[];
  labelAt: Point | null;
}

export interface Layout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

interface Point {
  x: number;
  y: number;
}

const NODE_HEIGHT = 46;
const RANK_SEP = 44;

/** The type a node shows: `missing` for a target naming no node, `?` when none is written. */
function typeLabel(node: GraphNode): string {
  return node.type ?? (node.missing ? 'missing' : '?');
}

/** Wide enough for the id (monospace) and for "type · ○ not reached" (the longest state). */
function nodeWidth(id: string, type: string): number {
  return Math.min(240, Math.max(120, id.length * 7.6 + 28, (type.length + 16) * 6.3 + 24));
}

/**
 * Places the flow top to bottom with dagre (a layered layout, as flows read). Runs of nodes
 * linked one to one (a → b → c, nothing else entering or leaving between them) go to dagre as
 * ONE tall block and are stacked inside it afterwards: most of a flow is such runs, and
 * dagre's cost grows much faster than the node count (a 200-step chain: ~300 ms → ~1 ms).
 */
export function layoutFlow(shape: FlowGraph): Layout {
  const chains = findChains(shape);
  const blockOf = new Map<string, Chain>();
  for (const chain of chains) for (const node of chain.nodes) blockOf.set(node.id, chain);

  const graph = new Graph({ multigraph: true });
  graph.setGraph({
    rankdir: 'TB',
    nodesep: 28,
    ranksep: RANK_SEP,
    edgesep: 12,
    marginx: 12,
    marginy: 12,
  });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const chain of chains)
    graph.setNode(chain.key, { width: chain.width, height: chain.height });
  const outer = shape.edges
    .map((edge, i) => ({ edge, i }))
    .filter(({ edge }) => !isInner(edge, blockOf));
  for (const { edge, i } of outer) {
    const label = edge.label ?? '';
    graph.setEdge(
      blockOf.get(edge.from)?.key ?? edge.from,
      blockOf.get(edge.to)?.key ?? edge.to,
      label ? { width: label.length * 6.5 + 8, height: 16, labelpos: 'c' } : {},
      `e${i}`,
    );
  }
  layout(graph);

  const placed = new Map<string, PlacedNode>();
  for (const chain of chains) {
    const box = graph.node(chain.key) as Point & { height: number };
    let top = box.y - box.height / 2;
    for (const node of chain.nodes) {
      const type = typeLabel(node);
      const width = nodeWidth(node.id, type);
      placed.set(node.id, {
        ...node,
        type,
        x: box.x,
        y: top + NODE_HEIGHT / 2,
        width,
        height: NODE_HEIGHT,
      });
      top += NODE_HEIGHT + RANK_SEP;
    }
  }
  const outerIndex = new Set(outer.map(({ i }) => i));
  const edges = shape.edges.map((edge, i): PlacedEdge => {
    const from = placed.get(edge.from);
    const to = placed.get(edge.to);
    if (!from || !to) return { ...edge, points: [], labelAt: null };
    if (!outerIndex.has(i))
      return {
        ...edge,
        points: [
          { x: from.x, y: from.y + from.height / 2 },
          { x: to.x, y: to.y - to.height / 2 },
        ],
        labelAt: null,
      };
    const routed = graph.edge({
      v: blockOf.get(edge.from)?.key ?? edge.from,
      w: blockOf.get(edge.to)?.key ?? edge.to,
      name: `e${i}`,
    }) as { points?: Point[]; x?: number; y?: number };
    return {
      ...edge,
      points: clipEnds(routed.points ?? [], from, to),
      labelAt:
        edge.label && routed.x !== undefined && routed.y !== undefined
          ? { x: routed.x, y: routed.y }
          : null,
    };
  });
  const size = graph.graph() as { width?: number; height?: number };
  return {
    nodes: shape.nodes.map((node) => placed.get(node.id)!),
    edges,
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
  };
}

interface Chain {
  key: string;
  nodes: GraphNode[];
  width: number;
  height: number;
}

/** An edge inside a chain: consecutive members, which are drawn as a straight link. */
function isInner(edge: GraphEdge, blockOf: ReadonlyMap<string, Chain>): boolean {
  const chain = blockOf.get(edge.from);
  if (!chain || chain !== blockOf.get(edge.to)) return false;
  const at = chain.nodes.findIndex((n) => n.id === edge.from);
  return chain.nodes[at + 1]?.id === edge.to;
}

/**
 * Splits the nodes into maximal runs a → b → … where each link is the only edge leaving its
 * source and the only one entering its target (unlabelled, not a self loop); every other node
 * is a run of one. Runs keep document order of their first node.
 */
function findChains(shape: FlowGraph): Chain[] {
  const outs = new Map<string, GraphEdge[]>();
  const ins = new Map<string, GraphEdge[]>();
  for (const edge of shape.edges) {
    outs.set(edge.from, [...(outs.get(edge.from) ?? []), edge]);
    ins.set(edge.to, [...(ins.get(edge.to) ?? []), edge]);
  }
  const byId = new Map(shape.nodes.map((n) => [n.id, n]));
  const linkAfter = (id: string): string | null => {
    const out = outs.get(id) ?? [];
    const edge = out.length === 1 ? out[0] : undefined;
    if (!edge || edge.label || edge.to === id) return null;
    return (ins.get(edge.to) ?? []).length === 1 ? edge.to : null;
  };
  const hasLinkBefore = (id: string): boolean => {
    const into = ins.get(id) ?? [];
    return into.length === 1 && linkAfter(into[0]!.from) === id;
  };
  const taken = new Set<string>();
  const chains: Chain[] = [];
  const collect = (first: GraphNode) => {
    const members = [first];
    taken.add(first.id);
    for (let next = linkAfter(first.id); next !== null && !taken.has(next);) {
      const node = byId.get(next);
      if (!node) break;
      members.push(node);
      taken.add(next);
      next = linkAfter(next);
    }
    chains.push({
      key: `chain:${first.id}`,
      nodes: members,
      width: Math.max(...members.map((n) => nodeWidth(n.id, typeLabel(n)))),
      height: members.length * NODE_HEIGHT + (members.length - 1) * RANK_SEP,
    });
  };
  for (const node of shape.nodes) if (!taken.has(node.id) && !hasLinkBefore(node.id)) collect(node);
  // What is left is a cycle of one-to-one links: start it anywhere.
  for (const node of shape.nodes) if (!taken.has(node.id)) collect(node);
  return chains;
}

/** dagre clipped the route to the blocks: clip its ends to the nodes themselves. */
function clipEnds(points: Point[], from: PlacedNode, to: PlacedNode): Point[] {
  if (points.length < 2) return points;
  const inner = points.slice(1, -1);
  const afterSource = inner[0] ?? { x: to.x, y: to.y };
  const beforeTarget = inner.at(-1) ?? { x: from.x, y: from.y };
  return [intersect(from, afterSource), ...inner, intersect(to, beforeTarget)];
}

/** Where the line from the node's centre towards `point` leaves the node's rectangle. */
function intersect(node: PlacedNode, point: Point): Point {
  const dx = point.x - node.x;
  const dy = point.y - node.y;
  const w = node.width / 2;
  const h = node.height / 2;
  if (dx === 0 && dy === 0) return { x: node.x, y: node.y };
  const scale = Math.abs(dy) * w > Math.abs(dx) * h ? h / Math.abs(dy) : w / Math.abs(dx);
  return { x: node.x + dx * scale, y: node.y + dy * scale };
}
