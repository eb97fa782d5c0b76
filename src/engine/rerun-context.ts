import { RerunRefusedError } from '../errors/execution-errors.js';
import type { Context } from '../expression/scope.js';
import { childFlowsOf } from '../flow/analysis/child-flows.js';
import type { Flow, LoadedNode } from '../flow/flow.js';
import { checkpointInput, nodeResults, nodeVisit } from '../state/checkpoint-context.js';
import type { NodeTiming } from '../state/execution-state.js';
import { getOwn, setOwn } from '../util/own-record.js';
import { resolveOptions } from './engine-options.js';
import { initialContext } from './execution.js';
import { targetOf } from './successor.js';

/** What a rerun reads of the execution it reruns: its checkpoint and its nodes' timings. */
export interface RerunOriginal {
  readonly executionId: string;
  readonly context: Readonly<Record<string, unknown>>;
  /** Per node, its latest visit (docs/durable-contract.md §1): `startedAt` orders the visits. */
  readonly timings: Readonly<Record<string, NodeTiming>>;
}

export interface RerunRequest {
  fromNode: string;
  /** The new execution's id (its `$EXECUTION_ID`). */
  executionId: string;
  /** A new input; by default the original's. */
  input?: Record<string, unknown> | undefined;
  /** Results to keep instead of the saved ones, by node id: kept nodes only. */
  results?: Readonly<Record<string, unknown>> | undefined;
}

export interface RerunPlan {
  /** The checkpoint the new execution is queued with: its next step runs `fromNode`. */
  context: Context;
  /** The nodes whose results the new execution keeps, in the order their results were saved. */
  kept: string[];
  /** `fromNode`, then the nodes that ran after it in the original: what runs again. */
  willRun: string[];
}

/**
 * The start of a rerun (docs/durable-runtime.md "Rerun from a node"): a new execution of the same
 * flow that keeps the saved results of the nodes that ran before `fromNode` and runs from it.
 *
 * The original's path to `fromNode` is walked from `start` along its saved results (the rule
 * the stepper follows, successor.ts `targetOf`): its last node becomes the new `$LAST_NODE`
 * (with its `$BRANCH`), so the stepper's next node is `fromNode` with nothing new in the engine.
 * Kept: the nodes of that path, and any other node whose latest visit started before
 * `fromNode`'s latest (a node an earlier round of a cycle ran). A node with a result and no
 * timing was kept by the rerun this one reruns: it came before everything that ran. `$ENV` is
 * the original's (what the kept results were computed with; the control plane that builds this
 * has no worker's environment), `$GLOBAL` the definition's own, `$VISITS` the kept nodes'.
 * Rerunning from `start` keeps nothing: the context is a fresh start's, input only.
 */
export function rerunContext(
  flow: Flow,
  original: RerunOriginal,
  request: RerunRequest,
): RerunPlan {
  const { fromNode } = request;
  const from = ranNode(flow, original, fromNode);
  const saved = nodeResults(original.context);
  const path = pathTo(flow, original, from);
  const input =
    request.input ?? ((checkpointInput(original.context) ?? {}) as Record<string, unknown>);
  // Only `start` has an empty path: nothing ran before it.
  const kept = path.length === 0 ? [] : keptNodes(original, path, from);
  checkOverrides(request.results, new Set(kept), fromNode);
  const willRun = ranAfter(original.timings, new Set(kept), fromNode);
  if (path.length === 0) return { context: { $INPUT: input }, kept, willRun };
  const last = predecessor(flow, original, path, from);
  const context = initialContext(flow, resolveOptions(), request.executionId, input);
  context.$ENV = original.context.$ENV ?? {};
  const results: Record<string, unknown> = {};
  const visits: Record<string, number> = {};
  for (const id of kept) {
    const given = request.results && Object.hasOwn(request.results, id);
    setOwn(results, id, given ? getOwn(request.results!, id) : getOwn(saved, id));
    setOwn(visits, id, Math.max(1, nodeVisit(original.context, id)));
  }
  context.$NODE = results;
  context.$VISITS = visits;
  context.$LAST_NODE = last.def.id;
  // The saved choice, even when `results` gives the node another: the next node is `fromNode`.
  context.$BRANCH = last.nodeType.branching ? getOwn(saved, last.def.id) : null;
  return { context, kept, willRun };
}

/** `fromNode` as a node of the flow's top level that ran in the original. */
function ranNode(flow: Flow, original: RerunOriginal, fromNode: string): LoadedNode {
  const node = flow.nodesById.get(fromNode);
  if (!node) {
    const enclosing = enclosingNode(flow, fromNode);
    throw new RerunRefusedError(
      'fromNode',
      enclosing
        ? `node '${fromNode}' is inside the body of '${enclosing}' (a loop, map, parallel or child flow): a rerun starts from a node of the top-level flow, such as '${enclosing}'`
        : `the flow has no node '${fromNode}'`,
    );
  }
  if (getOwn(original.timings, fromNode) === undefined)
    throw new RerunRefusedError(
      'fromNode',
      `node '${fromNode}' never ran in execution ${original.executionId}`,
    );
  return node;
}

/** The top-level node whose child flows (at any depth) hold a node `nodeId`, or null. */
function enclosingNode(flow: Flow, nodeId: string): string | null {
  const holds = (child: Flow): boolean =>
    child.nodesById.has(nodeId) ||
    child.nodes.some((node) => childFlowsOf(node, {}, '').some(({ flow }) => holds(flow)));
  const outer = flow.nodes.find((node) =>
    childFlowsOf(node, {}, '').some((child) => holds(child.flow)),
  );
  return outer?.def.id ?? null;
}

/**
 * The nodes from `start` to `from` (excluded), following each node's saved result as the walk
 * does. Refused when the results lead elsewhere, or along nodes that ran after `from`'s latest
 * visit: `from` then ran only in an earlier round of a cycle, and no saved state leads to it.
 */
function pathTo(flow: Flow, original: RerunOriginal, from: LoadedNode): LoadedNode[] {
  const saved = nodeResults(original.context);
  const fromStart = getOwn(original.timings, from.def.id)!.startedAt;
  const path: LoadedNode[] = [];
  const seen = new Set<string>();
  for (let node: LoadedNode | undefined = flow.startNode ?? undefined; node !== undefined;) {
    if (node === from) return path;
    const id = node.def.id;
    const startedAt = getOwn(original.timings, id)?.startedAt;
    if (seen.has(id) || !Object.hasOwn(saved, id) || (startedAt ?? '') > fromStart) break;
    seen.add(id);
    path.push(node);
    const next = node.def.type === 'end' ? null : targetOf(node, getOwn(saved, id));
    node = next === null ? undefined : flow.nodesById.get(next);
  }
  throw new RerunRefusedError(
    'fromNode',
    `node '${from.def.id}' is not on the path execution ${original.executionId}'s saved results lead along (it ran only in an earlier round of a cycle): rerun from a node of the last round`,
  );
}

/**
 * The node `from`'s latest visit came after: the one that leads to it (by its saved result) and
 * started last before it. The path's last node unless a timing shows a later one (a cycle's
 * back edge); timings in the same millisecond cannot tell, and the path's is taken.
 */
function predecessor(
  flow: Flow,
  original: RerunOriginal,
  path: readonly LoadedNode[],
  from: LoadedNode,
): LoadedNode {
  const saved = nodeResults(original.context);
  const startOf = (node: LoadedNode) => getOwn(original.timings, node.def.id)?.startedAt ?? '';
  const fromStart = startOf(from);
  let last = path.at(-1)!;
  for (const id of Object.keys(saved)) {
    const node = flow.nodesById.get(id);
    if (!node || node.def.type === 'end' || targetOf(node, getOwn(saved, id)) !== from.def.id)
      continue;
    if (startOf(node) > startOf(last) && startOf(node) < fromStart) last = node;
  }
  return last;
}

function keptNodes(
  original: RerunOriginal,
  path: readonly LoadedNode[],
  from: LoadedNode,
): string[] {
  const onPath = new Set(path.map((node) => node.def.id));
  const fromStart = getOwn(original.timings, from.def.id)!.startedAt;
  return Object.keys(nodeResults(original.context)).filter((id) => {
    if (onPath.has(id)) return true;
    if (id === from.def.id) return false;
    const timing = getOwn(original.timings, id);
    return timing === undefined || timing.startedAt < fromStart;
  });
}

function checkOverrides(
  given: Readonly<Record<string, unknown>> | undefined,
  kept: ReadonlySet<string>,
  fromNode: string,
): void {
  const stray = Object.keys(given ?? {}).find((id) => !kept.has(id));
  if (stray !== undefined)
    throw new RerunRefusedError(
      `results.${stray}`,
      `node '${stray}' is not kept by a rerun from '${fromNode}': only the results of nodes that ran before it can be given`,
    );
}

/** `fromNode`, then the other nodes that ran and are not kept, in the order they started. */
function ranAfter(
  timings: Readonly<Record<string, NodeTiming>>,
  kept: ReadonlySet<string>,
  fromNode: string,
): string[] {
  const after = Object.entries(timings)
    .filter(([id]) => id !== fromNode && !kept.has(id))
    .sort(([, a], [, b]) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  return [fromNode, ...after.map(([id]) => id)];
}
