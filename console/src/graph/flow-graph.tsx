import { useState } from 'preact/hooks';
import type { FlowIssue } from '../api/types';
import { EffectMark } from '../components/effect-mark';
import type { Layout, PlacedEdge, PlacedNode } from './layout';

/** What a node's outline shows of an issue on it. */
type MarkedIssue = Pick<FlowIssue, 'severity'>;

/** What a node shows: its state in an execution or a dry run, or "not reached". */
export type NodeState =
  'done' | 'running' | 'waiting' | 'failed' | 'cancelled' | 'pinned' | 'not reached';

const GLYPH: Record<NodeState, string> = {
  done: '✓',
  running: '▶',
  waiting: '‖',
  failed: '✕',
  cancelled: '⊘',
  pinned: '◉',
  'not reached': '○',
};

export interface FlowGraphProps {
  layout: Layout;
  label: string;
  states?: ReadonlyMap<string, NodeState>;
  issues?: ReadonlyMap<string, readonly MarkedIssue[]>;
  selected?: string | null;
  onSelect?: (nodeId: string) => void;
}

/**
 * The flow as an SVG graph: every node labelled with its id and type, coloured by its state
 * AND marked with the state's word and glyph (never colour alone); nodes with validation
 * issues get a red outline and the issue count. Nodes are buttons (Enter/Space select).
 */
export function FlowGraph(props: FlowGraphProps) {
  const { layout } = props;
  const [fit, setFit] = useState(true);
  return (
    <figure class="graph">
      <div class="graph-tools">
        <button
          type="button"
          class="link-button small"
          onClick={() => setFit(!fit)}
          aria-pressed={!fit}
        >
          {fit ? 'Actual size' : 'Fit to width'}
        </button>
        <Legend states={props.states} />
        {layout.nodes.some((node) => node.replayable === false) ? <EffectLegend /> : null}
      </div>
      {/* Focusable, so a keyboard can scroll a graph taller than the box (axe: scrollable-region-focusable). */}
      <div
        class={`graph-scroll${fit ? ' fit' : ''}`}
        tabIndex={0}
        role="region"
        aria-label={`${props.label} (scrollable)`}
      >
        <svg
          role="group"
          aria-label={props.label}
          viewBox={`0 0 ${Math.max(layout.width, 1)} ${Math.max(layout.height, 1)}`}
          width={fit ? '100%' : layout.width}
          height={fit ? undefined : layout.height}
          style={fit ? { maxWidth: `${Math.max(layout.width, 1)}px` } : undefined}
        >
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" class="graph-arrow" />
            </marker>
          </defs>
          {layout.edges.map((edge, i) => (
            <Edge key={`${edge.from}-${edge.to}-${i}`} edge={edge} />
          ))}
          {layout.nodes.map((node) => (
            <Node
              key={node.id}
              node={node}
              state={props.states ? (props.states.get(node.id) ?? 'not reached') : null}
              issues={props.issues?.get(node.id) ?? []}
              selected={props.selected === node.id}
              onSelect={props.onSelect}
            />
          ))}
        </svg>
      </div>
    </figure>
  );
}

function Edge({ edge }: { edge: PlacedEdge }) {
  if (edge.points.length === 0) return null;
  const d = edge.points
    .map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`)
    .join(' ');
  return (
    <g class="graph-edge" data-edge={`${edge.from}>${edge.to}`}>
      <path d={d} markerEnd="url(#arrow)" />
      {edge.label && edge.labelAt ? (
        <text
          x={edge.labelAt.x}
          y={edge.labelAt.y + 4}
          text-anchor="middle"
          class="graph-edge-label"
        >
          {edge.label}
        </text>
      ) : null}
    </g>
  );
}

function Node(props: {
  node: PlacedNode;
  state: NodeState | null;
  issues: readonly MarkedIssue[];
  selected: boolean;
  onSelect: ((id: string) => void) | undefined;
}) {
  const { node, state, issues, selected, onSelect } = props;
  const x = node.x - node.width / 2;
  const y = node.y - node.height / 2;
  const errors = issues.filter((i) => i.severity === 'error').length;
  const classes = [
    'graph-node',
    state ? `state-${state.replace(' ', '-')}` : '',
    node.missing ? 'missing' : '',
    issues.length > 0 ? (errors > 0 ? 'has-error' : 'has-warning') : '',
    selected ? 'selected' : '',
  ].join(' ');
  const idText = clip(node.id, node.width, 7.6);
  const typeText = clip(
    `${node.missing ? 'missing' : node.type}${state ? ` · ${GLYPH[state]} ${state}` : ''}`,
    node.width,
    6.3,
  );
  const effectful = node.replayable === false;
  // The name starts with the visible text (WCAG 2.5.3); the issue count is added in words.
  const described = `${idText} ${typeText}${effectful ? ', effectful' : ''}${
    issues.length > 0 ? `, ${issues.length} issue${issues.length === 1 ? '' : 's'}` : ''
  }`;
  const select = () => onSelect?.(node.id);
  return (
    <g
      class={classes}
      data-node-id={node.id}
      data-state={state ?? undefined}
      tabIndex={onSelect ? 0 : undefined}
      role={onSelect ? 'button' : 'img'}
      aria-label={described}
      aria-pressed={onSelect ? selected : undefined}
      onClick={select}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          select();
        }
      }}
    >
      <rect x={x} y={y} width={node.width} height={node.height} rx="8" />
      {/* One text element, so the words read in order with a space between the lines. */}
      <text text-anchor="middle">
        <tspan x={node.x} y={y + 19} class="graph-node-id">
          {`${idText} `}
        </tspan>
        <tspan x={node.x} y={y + 36} class="graph-node-type">
          {typeText}
        </tspan>
      </text>
      {effectful ? (
        // A drawn bolt, not a character: the node's name must start with its visible text
        // (axe label-content-name-mismatch), and ", effectful" is said in the name.
        <path
          class="graph-effect"
          aria-hidden="true"
          transform={`translate(${x + 6} ${y + 4})`}
          d="M6 0 L0 8 L4 8 L2 14 L9 5 L5 5 L7 0 Z"
        />
      ) : null}
      {issues.length > 0 ? (
        <g class="graph-issue-count" aria-hidden="true">
          <circle cx={x + node.width - 4} cy={y + 4} r="10" />
          <text x={x + node.width - 4} y={y + 8} text-anchor="middle">
            {issues.length}
          </text>
        </g>
      ) : null}
    </g>
  );
}

/** Explains the bolt: a retry or replay runs an effectful node again; its result is stored first. */
function EffectLegend() {
  return (
    <p class="effect-legend">
      <EffectMark /> effectful: stored before the next node runs, run again by a retry or replay;
      the others are recomputed
    </p>
  );
}

/** Shortens `text` to what fits `width` at about `charPx` per character. */
function clip(text: string, width: number, charPx: number): string {
  const max = Math.floor((width - 12) / charPx);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function Legend({ states: shown }: { states: ReadonlyMap<string, NodeState> | undefined }) {
  if (!shown) return null;
  const states: NodeState[] = ['done', 'running', 'waiting', 'failed', 'not reached'];
  // Only on the rare graph that has one: the node a cancel cut short.
  if ([...shown.values()].includes('cancelled')) states.splice(4, 0, 'cancelled');
  return (
    <ul class="legend" aria-label="Legend">
      {states.map((s) => (
        <li key={s}>
          <span class={`legend-swatch state-${s.replace(' ', '-')}`} aria-hidden="true" />
          {GLYPH[s]} {s}
        </li>
      ))}
    </ul>
  );
}
