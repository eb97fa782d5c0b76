import type { LoadedNode } from './flow.js';
import type { LabelledTarget, NodeDef, NodeType } from './node-type.js';

/** One way a node can hand over to another: its `next`, or one of a branching node's targets. */
export interface FlowEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: 'next' | 'branch';
  /** What a drawn graph writes on the edge (`true`, a branch's name), or null. */
  readonly label: string | null;
}

/**
 * The successor rule (docs/flow-format.md §2.2) as edges: none after an `end`; `next` for a
 * non-branching node; every declared target of a branching one, in declared order (two
 * targets naming one id are two edges). Ids naming no node are kept.
 */
export function nodeEdges(node: LoadedNode): FlowEdge[] {
  const from = node.def.id;
  if (node.def.type === 'end') return [];
  if (node.targets === null)
    return node.def.next === null ? [] : [{ from, to: node.def.next, kind: 'next', label: null }];
  return declaredTargets(node.nodeType, node.def).map(({ to, label }) => ({
    from,
    to,
    kind: 'branch',
    label,
  }));
}

/**
 * The targets a branching type declares: its own `targets(def)`, else (plugins) each branch's
 * `next`, or its `name` when the type allows that, labelled with the branch's name.
 */
export function declaredTargets(nodeType: NodeType, def: NodeDef): LabelledTarget[] {
  if (nodeType.targets)
    return nodeType
      .targets(def)
      .map((target) => (typeof target === 'string' ? { to: target, label: null } : target));
  const branches = (def as Record<string, unknown>).branches;
  if (!Array.isArray(branches)) return [];
  const out: LabelledTarget[] = [];
  for (const b of branches as Array<Record<string, unknown>>) {
    const name = typeof b.name === 'string' && b.name ? b.name : null;
    if (typeof b.next === 'string' && b.next) out.push({ to: b.next, label: name });
    else if (nodeType.branchNameAsTarget && name !== null) out.push({ to: name, label: name });
  }
  return out;
}
