import { defaultFunctions, type FunctionRegistry } from '../../expression/function-registry.js';
import type { Flow, LoadedNode } from '../flow.js';
import { childFlowsOf } from './child-flows.js';
import { envReadIssues, exposeEnvIssues } from './env-issues.js';
import { handlerIssues } from './handler-issues.js';
import { evaluatedSites } from './evaluated-sites.js';
import { ExpressionChecker } from './expression-checker.js';
import { FlowGraph } from './flow-graph.js';
import type { FlowIssue } from './flow-issue.js';
import { type FlowScope, nodePath, rawNodeOf } from './flow-scope.js';
import { ignoredReferences, type IgnoredReferences } from './ignored-references.js';
import { nodeShapeOf, TOP_LEVEL } from './known-keys.js';
import { loadWarnings } from './load-warnings.js';
import { nodeReadIssues } from './node-read-issues.js';
import {
  type FlowExists,
  referenceIssues,
  referenceSite,
  type ReferenceSite,
} from './reference-issues.js';
import { successorIssues } from './successor-issues.js';
import { unknownKeyIssues } from './unknown-keys.js';

export interface AnalyzeOptions {
  /** The `$F` functions the host will run with (custom ones included); default the built-ins. */
  functions?: FunctionRegistry | undefined;
  /** When given, every `reference` node's flow is looked up (the flow store, in the durable tier). */
  flowExists?: FlowExists | undefined;
}

export type AnalyzeSyncOptions = Omit<AnalyzeOptions, 'flowExists'>;

/**
 * Finds what will fail when a loaded flow runs (errors) and what is probably a mistake
 * (warnings), in the flow and every child flow it embeds. Never throws. docs/validate.md
 * lists the codes.
 */
export async function analyzeFlow(flow: Flow, options: AnalyzeOptions = {}): Promise<FlowIssue[]> {
  const session = runAnalysis(flow, options);
  if (options.flowExists && session.references.length > 0)
    session.issues.push(...(await referenceIssues(session.references, options.flowExists)));
  return session.issues;
}

/** analyzeFlow without the one asynchronous check (`reference` targets). */
export function analyzeFlowSync(flow: Flow, options: AnalyzeSyncOptions = {}): FlowIssue[] {
  return runAnalysis(flow, options).issues;
}

function runAnalysis(flow: Flow, options: AnalyzeSyncOptions): AnalysisSession {
  const session = new AnalysisSession(options.functions ?? defaultFunctions);
  try {
    session.analyze({ flow, prefix: '', enclosing: null });
  } catch (error) {
    // A bug here must not block a flow that may well be fine: say so, as a warning.
    session.issues.push({
      severity: 'warning',
      code: 'analysis_failed',
      path: '',
      nodeId: null,
      message: `the analysis stopped early: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return session;
}

interface NodeEntry {
  readonly node: LoadedNode;
  readonly raw: Record<string, unknown>;
  readonly path: string;
  readonly known: ReturnType<typeof nodeShapeOf>;
  readonly ignored: IgnoredReferences;
}

/** Issues in document order: a flow's own, then node by node, each child flow after its node. */
class AnalysisSession {
  readonly issues: FlowIssue[] = [];
  readonly references: ReferenceSite[] = [];

  constructor(private readonly functions: FunctionRegistry) {}

  analyze(scope: FlowScope): void {
    const { flow, prefix } = scope;
    this.issues.push(
      ...unknownKeyIssues(flow.document, TOP_LEVEL, prefix, {
        label: prefix === '' ? 'the flow' : 'the child flow',
        type: null,
        nodeId: null,
      }),
      ...exposeEnvIssues(scope),
    );
    if (flow.startNode === null) this.issues.push(missingStart(scope));
    const entries = flow.nodes.map((node): NodeEntry => {
      const raw = rawNodeOf(scope, node);
      const path = nodePath(scope, node);
      const known = nodeShapeOf(node.nodeType);
      return {
        node,
        raw,
        path,
        known,
        ignored: ignoredReferences(raw, known, path, flow.nodesById),
      };
    });
    // Only the definition the engine looks up routes anywhere (the last of duplicate ids).
    const routing = entries.filter((e) => flow.nodesById.get(e.node.def.id) === e.node);
    const graph = new FlowGraph(
      flow,
      new Map(routing.map((e) => [e.node.def.id, e.ignored.ids] as const)),
    );
    const reachable = flow.startNode ? graph.reachableFrom(flow.startNode.def.id) : null;
    for (const entry of entries) this.analyzeNode(scope, entry, graph, reachable);
  }

  private analyzeNode(
    scope: FlowScope,
    { node, raw, path, known, ignored }: NodeEntry,
    graph: FlowGraph,
    reachable: ReadonlySet<string> | null,
  ): void {
    const { id, type } = node.def;
    const winner = scope.flow.nodesById.get(id);
    if (winner !== node) {
      this.issues.push(duplicateId(node, path, winner));
      return;
    }
    if (known !== null)
      this.issues.push(
        ...unknownKeyIssues(raw, known, path, { label: `a ${type} node`, type, nodeId: id }),
      );
    for (const missing of ignored.missing) {
      this.issues.push({
        severity: 'warning',
        code: 'unknown_target',
        path: missing.path,
        nodeId: id,
        message: `'${missing.id}' names no node (it sits under a key the engine ignores, so nothing routes there yet)`,
      });
    }
    this.issues.push(...loadWarnings(node, raw, path));
    if (reachable !== null && !reachable.has(id)) {
      this.issues.push({
        severity: 'warning',
        code: 'unreachable_node',
        path,
        nodeId: id,
        message: `node '${id}' is unreachable: no path from the start node leads to it`,
      });
    }
    this.issues.push(...successorIssues(scope, node, raw, path), ...handlerIssues(node, raw, path));
    this.checkExpressions(scope, node, raw, path, graph, reachable);
    const reference = referenceSite(node, raw, path);
    if (reference !== null) this.references.push(reference);
    for (const child of childFlowsOf(node, raw, path))
      this.analyze({ flow: child.flow, prefix: child.path, enclosing: scope });
  }

  private checkExpressions(
    scope: FlowScope,
    node: LoadedNode,
    raw: Record<string, unknown>,
    path: string,
    graph: FlowGraph,
    reachable: ReadonlySet<string> | null,
  ): void {
    const sites = evaluatedSites(node.def.type, raw, path);
    if (sites === null) return;
    const checker = new ExpressionChecker(this.functions, node.def.id, this.issues);
    for (const site of sites) checker.checkSite(site);
    this.issues.push(
      ...nodeReadIssues(scope, graph, reachable, node, checker.nodeReads),
      ...envReadIssues(scope, checker.envReads, node.def.id),
    );
  }
}

function missingStart(scope: FlowScope): FlowIssue {
  const where = scope.prefix === '' ? 'the flow' : 'the child flow';
  const what = scope.flow.nodes.length === 0 ? 'has no nodes' : 'has no node of type "start"';
  const outcome =
    scope.prefix === ''
      ? 'every run fails with node_not_found'
      : 'the node running it fails with node_not_found';
  return {
    severity: 'error',
    code: 'missing_start',
    path: scope.prefix === '' ? 'nodes' : `${scope.prefix}.nodes`,
    nodeId: null,
    message: `${where} ${what}: ${outcome}`,
  };
}

function duplicateId(node: LoadedNode, path: string, winner: LoadedNode | undefined): FlowIssue {
  return {
    severity: 'warning',
    code: 'duplicate_node_id',
    path,
    nodeId: node.def.id,
    message:
      `node id '${node.def.id}' is used again by nodes[${winner?.index ?? '?'}]: ` +
      'the last definition wins, so this one never runs',
  };
}
