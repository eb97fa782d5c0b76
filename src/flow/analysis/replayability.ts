import { defaultFunctions, type FunctionRegistry } from '../../expression/function-registry.js';
import type { Flow, LoadedNode } from '../flow.js';
import { childFlowsOf } from './child-flows.js';
import { evaluatedSites } from './evaluated-sites.js';
import { ExpressionChecker } from './expression-checker.js';
import { nodePath, rawNodeOf } from './flow-scope.js';

/**
 * Whether a durable worker may recompute a node after a crash instead of storing its result
 * before the next node runs (docs/durable-contract.md §5, step 5). Replayable: the node type
 * vouches that its result is a function of the saved state (`NodeType.inert`, or
 * `runsOnlyChildren` with every node of its child flows replayable) AND every expression and
 * template it evaluates calls only deterministic built-ins and reads no `$ENV`. Everything else
 * is effectful: what talks to the world, waits, runs host code, or reads the clock.
 */
export interface NodeReplay {
  readonly replayable: boolean;
  /** Why it is effectful, for people (null when replayable). */
  readonly reason: string | null;
}

export type FlowReplay = ReadonlyMap<string, NodeReplay>;

const REPLAYABLE: NodeReplay = Object.freeze({ replayable: true, reason: null });

/**
 * Every node of `flow` (by id; the definition the engine routes to for a duplicate id),
 * classified once. `functions`: the `$F` registry the flow runs with (a host's own functions
 * are never deterministic). Never throws: a node it cannot read is effectful.
 */
export function classifyReplay(
  flow: Flow,
  functions: FunctionRegistry = defaultFunctions,
): FlowReplay {
  return new ReplayClassifier(functions).flow(flow, '');
}

class ReplayClassifier {
  readonly #children = new Map<Flow, boolean>();

  constructor(private readonly functions: FunctionRegistry) {}

  flow(flow: Flow, prefix: string): Map<string, NodeReplay> {
    const verdicts = new Map<string, NodeReplay>();
    const scope = { flow, prefix, enclosing: null };
    for (const node of flow.nodes) {
      if (flow.nodesById.get(node.def.id) !== node) continue;
      let verdict: NodeReplay;
      try {
        verdict = this.node(node, rawNodeOf(scope, node), nodePath(scope, node));
      } catch (error) {
        verdict = effectful(`it could not be analysed: ${(error as Error).message}`);
      }
      verdicts.set(node.def.id, verdict);
    }
    return verdicts;
  }

  node(node: LoadedNode, raw: Record<string, unknown>, path: string): NodeReplay {
    const { nodeType } = node;
    const type = node.def.type;
    if (nodeType.suspending) return effectful(`a node of type ${type} waits for the world`);
    if (nodeType.inert !== true && nodeType.runsOnlyChildren !== true)
      return effectful(
        `a node of type ${type} may act on the world (its type does not declare it pure)`,
      );
    const expressions = this.expressions(node, raw, path);
    if (expressions !== null) return expressions;
    if (nodeType.runsOnlyChildren === true)
      for (const child of childFlowsOf(node, raw, path))
        if (!this.childReplayable(child.flow, child.path))
          return effectful('a node of its child flow is effectful');
    return REPLAYABLE;
  }

  /** The effect an expression of the node has, or null when they are all deterministic. */
  expressions(node: LoadedNode, raw: Record<string, unknown>, path: string): NodeReplay | null {
    const sites = evaluatedSites(node.def.type, raw, path);
    if (sites === null) return effectful('its expressions cannot be read (a plugin type)');
    const checker = new ExpressionChecker(this.functions, node.def.id, []);
    for (const site of sites) checker.checkSite(site);
    if (checker.readsEnv) return effectful('it reads $ENV');
    for (const name of checker.calls) {
      const fn = this.functions.get(name);
      if (fn?.deterministic !== true)
        return effectful(
          fn === undefined
            ? `it calls $F.${name}, which is not registered`
            : fn.category === 'datetime'
              ? `it calls $F.${name}, which reads the clock`
              : `it calls $F.${name}, which is not one of plaita's deterministic functions`,
        );
    }
    return null;
  }

  childReplayable(flow: Flow, prefix: string): boolean {
    let known = this.#children.get(flow);
    if (known === undefined) {
      known = [...this.flow(flow, prefix).values()].every((verdict) => verdict.replayable);
      this.#children.set(flow, known);
    }
    return known;
  }
}

function effectful(reason: string): NodeReplay {
  return { replayable: false, reason };
}

/** One node of a flow as `validate --json` and the API show it. */
export interface NodeReplayView {
  nodeId: string;
  type: string;
  replayable: boolean;
  reason: string | null;
}

/** The top-level nodes of `flow` in document order, each with its verdict. */
export function replayView(flow: Flow, functions?: FunctionRegistry): NodeReplayView[] {
  const verdicts = classifyReplay(flow, functions);
  return flow.nodes.flatMap((node) => {
    const verdict = flow.nodesById.get(node.def.id) === node ? verdicts.get(node.def.id) : null;
    return verdict ? [{ nodeId: node.def.id, type: node.def.type, ...verdict }] : [];
  });
}
