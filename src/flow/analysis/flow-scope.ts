import { isRecord } from '../../expression/value-kind.js';
import { formatPath } from '../document-schema.js';
import type { Flow, LoadedNode } from '../flow.js';

/** One flow being analysed: the top-level flow or a child flow embedded in one of its nodes. */
export interface FlowScope {
  readonly flow: Flow;
  /** Path of this flow's document: '' at the top, e.g. `nodes[3].childFlow` for a child. */
  readonly prefix: string;
  /** The flow whose node embeds this one; null at the top. */
  readonly enclosing: FlowScope | null;
}

/** `nodes[2]`, or `nodes[3].childFlow.nodes[2]` inside a child flow. */
export function nodePath(scope: FlowScope, node: LoadedNode): string {
  return formatPath(scope.prefix, ['nodes', node.index]);
}

/** `<path>.<key>`, or `key` at the top. */
export function pathTo(path: string, ...keys: ReadonlyArray<string | number>): string {
  return formatPath(path, keys);
}

/** The node as written: the loader normalises `def`, but paths and spellings are the document's. */
export function rawNodeOf(scope: FlowScope, node: LoadedNode): Record<string, unknown> {
  const nodes = scope.flow.document.nodes;
  const raw: unknown = Array.isArray(nodes) ? nodes[node.index] : undefined;
  return isRecord(raw) ? raw : {};
}

/** True when `id` names a node of this flow or of any flow enclosing it (parent fallback, §5.5). */
export function idInScopeChain(scope: FlowScope, id: string): boolean {
  for (let s: FlowScope | null = scope; s !== null; s = s.enclosing)
    if (s.flow.nodesById.has(id)) return true;
  return false;
}

/** The node ids of this flow, then of each enclosing flow: candidates for a misspelt id. */
export function idsInScopeChain(scope: FlowScope): string[] {
  const ids: string[] = [];
  for (let s: FlowScope | null = scope; s !== null; s = s.enclosing)
    ids.push(...s.flow.nodesById.keys());
  return ids;
}

/** The first key among `keys` whose value is present: the loader's "first spelling wins". */
export function pickKey(raw: Record<string, unknown>, ...keys: string[]): string | undefined {
  return keys.find((key) => raw[key] !== undefined);
}
