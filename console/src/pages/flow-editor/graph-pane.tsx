import { useMemo } from 'preact/hooks';
import type { DryRunResult, FlowDocument, FlowGraph as Graph } from '../../api/types';
import { FlowGraph, type NodeState } from '../../graph/flow-graph';
import { layoutFlow } from '../../graph/layout';
import { issuesByNode, type EditorIssue } from './flow-issues';

/**
 * The graph the server drew of the document, nodes with issues outlined, and a dry run's node
 * states when there is one.
 */
export function GraphPane(props: {
  graph: Graph | null;
  issues: EditorIssue[] | null;
  doc: FlowDocument | null;
  run: DryRunResult | null;
  /** The flow's id for the graph's name ('' when it has none yet). */
  flowId: string;
  selected: string | null;
  onSelect: (nodeId: string) => void;
}) {
  const { graph, issues, doc, run } = props;
  const layout = useMemo(() => (graph ? layoutFlow(graph) : null), [graph]);
  const byNode = useMemo(() => issuesByNode(issues, doc), [issues, doc]);
  const states = useMemo(() => {
    if (!run) return undefined;
    const map = new Map<string, NodeState>();
    for (const step of run.trace) map.set(step.nodeId, step.status);
    return map;
  }, [run]);
  return (
    <div class="split-main">
      <h2>Graph</h2>
      {layout ? (
        <FlowGraph
          layout={layout}
          label={`Graph of ${props.flowId || 'the flow'}${issues?.length ? ', nodes with issues outlined' : ''}`}
          issues={byNode}
          {...(states ? { states } : {})}
          selected={props.selected}
          onSelect={props.onSelect}
        />
      ) : (
        <p class="muted">The document is not a flow yet.</p>
      )}
    </div>
  );
}
