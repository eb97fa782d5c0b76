import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../api/client';
import {
  flowNodes,
  TERMINAL,
  type Approval,
  type ErrorView,
  type ExecutionView,
  type FlowNode,
  type NodeView,
  type PinnedFlow,
} from '../api/types';
import { ApprovalCard } from '../components/approval/approval-card';
import { findApproval } from '../components/approval/find-approval';
import { CopyId } from '../components/copy-id';
import { describedBy, Field } from '../components/field';
import { JsonView } from '../components/json-view';
import { notify } from '../components/notice';
import { LoadFailed, Loading, ProblemBox } from '../components/problem-box';
import { StatusBadge } from '../components/status-badge';
import { Time } from '../components/time';
import { formatDuration } from '../format';
import { FlowGraph, type NodeState } from '../graph/flow-graph';
import { layoutFlow } from '../graph/layout';
import { navigate } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';
import { useLiveExecution, type LiveState } from './live-execution';
import { approvalOutcome, waitedMs } from './node-wait';
import { RerunFromNode } from './rerun/rerun-from-node';
import { RerunOrigin } from './rerun/rerun-origin';

/**
 * One execution: its flow graph coloured by node state and kept live over SSE, the node
 * timeline, each node's definition / output / error, the waiting panel (event form or
 * approval), and cancel, retry, replay with edited input and a rerun from a node.
 */
export default function ExecutionPage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? '';
  useTitle(`Execution ${id}`);
  const { view, error, live, follow } = useLiveExecution(id);
  const flow = useResource(() => api.get<PinnedFlow>(`/v1/executions/${seg(id)}/flow`), [id]);
  const [selected, setSelected] = useState<string | null>(null);

  const layout = useMemo(() => (flow.data ? layoutFlow(flow.data.graph) : null), [flow.data]);
  const states = useMemo(() => {
    const map = new Map<string, NodeState>();
    for (const node of view?.nodes ?? []) map.set(node.nodeId, node.status);
    // The engine records no visit for a start node: once anything ran, it was passed.
    if (map.size > 0)
      for (const node of flow.data?.graph.nodes ?? [])
        if (node.type === 'start' && !map.has(node.id)) map.set(node.id, 'done');
    return map;
  }, [view, flow.data]);

  if (error)
    return (
      <LoadFailed
        what={`Execution ${id}`}
        error={error}
        back={{ href: '/executions', label: 'All executions' }}
        retry={() => window.location.reload()}
      />
    );
  // Drawn once both answers are in (they are asked for together): one layout of a big page.
  if (!view || (flow.loading && !flow.data && !flow.error))
    return <Loading label="Loading the execution" />;
  const nodeDefs = new Map<string, FlowNode>();
  for (const node of flowNodes(flow.data?.document))
    if (typeof node.id === 'string') nodeDefs.set(node.id, node);

  return (
    <section
      aria-labelledby="execution-title"
      class="execution"
      data-ready={layout || flow.error ? 'true' : undefined}
      data-status={view.status}
    >
      <div class="page-head">
        <div>
          <p class="crumbs">
            <a href="/executions">Executions</a> /
          </p>
          <h1 id="execution-title" class="id-title">
            <CopyId id={view.executionId} />
          </h1>
        </div>
        <div class="head-status">
          <StatusBadge status={view.status} />
          <LiveBadge live={live} />
        </div>
      </div>
      <dl class="facts facts-row">
        <dt>Flow</dt>
        <dd>
          {view.flowId ? (
            <a
              href={`/flows/${seg(view.flowId)}${view.flowVersion ? `?version=${seg(view.flowVersion)}` : ''}`}
            >
              {view.flowId}@{view.flowVersion ?? '?'}
            </a>
          ) : (
            'inline document'
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time iso={view.createdAt} />
        </dd>
        <dt>Ended</dt>
        <dd>
          <Time iso={view.endedAt} />
        </dd>
        {view.lease ? (
          <>
            <dt>Worker</dt>
            <dd>
              <code>{view.lease.owner}</code>
            </dd>
          </>
        ) : null}
        {view.retries > 0 ? (
          <>
            <dt>Retried</dt>
            <dd>
              {view.retries} time{view.retries === 1 ? '' : 's'}
            </dd>
          </>
        ) : null}
        {view.replayOf ? (
          <>
            <dt>Replay of</dt>
            <dd>
              <CopyId id={view.replayOf} href={`/executions/${seg(view.replayOf)}`} short />
            </dd>
          </>
        ) : null}
        <RerunOrigin view={view} />
        {view.flowHash ? (
          <>
            <dt>Flow hash</dt>
            <dd>
              <CopyId id={view.flowHash} short />
            </dd>
          </>
        ) : null}
      </dl>
      <Actions view={view} onChanged={follow} settling={live === 'loading'} />
      {view.error ? <ErrorNote view={view} error={view.error} /> : null}
      {view.lease === null ? <NoWorkerNote /> : null}
      <WaitingPanel view={view} nodeDefs={nodeDefs} onChanged={follow} />
      <div class="split">
        <div class="split-main">
          <h2>Graph</h2>
          {layout ? (
            <FlowGraph
              layout={layout}
              label={`Flow graph of ${view.flowId ?? 'the execution'}, nodes coloured by state`}
              states={states}
              selected={selected}
              onSelect={setSelected}
            />
          ) : flow.error ? (
            <ProblemBox error={flow.error} title="The flow definition is not available" />
          ) : (
            <Loading label="Drawing the graph" />
          )}
        </div>
        <div class="split-side">
          <NodeDetails
            nodeId={selected}
            view={view}
            def={selected ? nodeDefs.get(selected) : undefined}
            onClose={() => setSelected(null)}
          />
        </div>
      </div>
      <Timeline view={view} selected={selected} onSelect={setSelected} />
      <div class="grid-2 below-fold">
        <section aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <JsonView value={view.input} label="execution input" openDepth={2} />
        </section>
        <section aria-labelledby="result-title">
          <h2 id="result-title">
            {view.status === 'completed'
              ? 'Result'
              : TERMINAL.includes(view.status)
                ? 'Result (none)'
                : 'Result (none yet)'}
          </h2>
          {view.result !== undefined ? (
            <JsonView value={view.result} label="execution result" openDepth={2} />
          ) : (
            <p class="muted">—</p>
          )}
        </section>
      </div>
    </section>
  );
}

function LiveBadge({ live }: { live: LiveState }) {
  const text: Record<LiveState, string> = {
    loading: 'connecting',
    live: '● live',
    reconnecting: 'reconnecting…',
    ended: 'final',
    idle: 'not live',
  };
  return (
    <span class={`live live-${live}`} role="status">
      {text[live]}
    </span>
  );
}

function Actions({
  view,
  onChanged,
  settling,
}: {
  view: ExecutionView;
  onChanged: (changedFrom?: number) => void;
  /** A retry was sent and no worker has taken it yet: another one would be refused. */
  settling: boolean;
}) {
  const caller = useCaller();
  const [replaying, setReplaying] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!can(caller, 'operator')) return null;
  const terminal = TERMINAL.includes(view.status);
  const act = async (action: 'cancel' | 'retry') => {
    if (action === 'cancel' && !window.confirm(`Cancel execution ${view.executionId}?`)) return;
    setBusy(true);
    setError(null);
    try {
      await api.post(`/v1/executions/${seg(view.executionId)}/${action}`);
      notify(action === 'cancel' ? 'Cancellation requested' : 'Retry requested');
      // A retry is carried out by a worker later: follow until the view leaves this version.
      onChanged(action === 'retry' ? view.version : undefined);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <div class="actions toolbar" role="toolbar" aria-label="Execution actions">
        {!terminal ? (
          <button type="button" class="button" disabled={busy} onClick={() => void act('cancel')}>
            Cancel
          </button>
        ) : null}
        {view.status === 'error' ? (
          <button
            type="button"
            class="button primary"
            disabled={busy || settling}
            onClick={() => void act('retry')}
          >
            Retry from {view.error?.nodeId ?? 'the failed node'}
          </button>
        ) : null}
        <button
          type="button"
          class="button"
          aria-expanded={replaying}
          onClick={() => setReplaying(!replaying)}
        >
          Replay with input…
        </button>
      </div>
      <ProblemBox error={error} title="Refused" />
      {replaying ? <ReplayForm view={view} onCancel={() => setReplaying(false)} /> : null}
    </>
  );
}

function ReplayForm({ view, onCancel }: { view: ExecutionView; onCancel: () => void }) {
  const [text, setText] = useState(() => JSON.stringify(view.input ?? {}, null, 2));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (e) {
      setError(`Not JSON: ${messageOf(e)}`);
      return;
    }
    if (!input || typeof input !== 'object' || Array.isArray(input)) {
      setError('The input must be a JSON object');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const started = await api.post<ExecutionView>(
        `/v1/executions/${seg(view.executionId)}/replay`,
        { input },
      );
      notify(`Replay started: ${started.executionId}`);
      navigate(`/executions/${seg(started.executionId)}`);
    } catch (e) {
      setError(e instanceof ApiError ? (e.field('input') ?? e.detail) : messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="card replay"
      onSubmit={(e) => void submit(e)}
      aria-label="Replay with edited input"
    >
      <p class="muted small">
        A new execution of the same pinned version ({view.flowVersion ?? 'inline'}) with this input.
      </p>
      <Field id="replay-input" label="Input (JSON)" error={error}>
        <textarea
          {...describedBy('replay-input', error)}
          class="code"
          rows={8}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </Field>
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          Start replay
        </button>
        <button type="button" class="button ghost" onClick={onCancel}>
          Close
        </button>
      </div>
    </form>
  );
}

function WaitingPanel(props: {
  view: ExecutionView;
  nodeDefs: Map<string, FlowNode>;
  onChanged: () => void;
}) {
  const { view } = props;
  const waiting = view.status === 'waiting' ? view.waiting : undefined;
  const type =
    (waiting &&
      (view.nodes.find((n) => n.nodeId === waiting.nodeId)?.type ??
        props.nodeDefs.get(waiting.nodeId)?.type)) ??
    null;
  if (!waiting) return null;
  return (
    <section class="card waiting-panel" aria-labelledby="waiting-title">
      <h2 id="waiting-title">
        Waiting at <code>{waiting.nodeId}</code> for <code>{waiting.eventType}</code>
      </h2>
      {waiting.dueAt ? (
        <p class="muted">
          Due <Time iso={waiting.dueAt} />
        </p>
      ) : null}
      {type === 'approval' ? (
        <ApprovalPanel view={view} nodeId={waiting.nodeId} onChanged={props.onChanged} />
      ) : (
        <EventForm view={view} eventType={waiting.eventType} onChanged={props.onChanged} />
      )}
    </section>
  );
}

function ApprovalPanel(props: { view: ExecutionView; nodeId: string; onChanged: () => void }) {
  const approval = useResource(
    () => findApproval(props.view.executionId, props.nodeId),
    [props.view.executionId, props.nodeId, props.view.version],
  );
  // A decision that does not settle the approval (strategy all or majority) changes no
  // execution version: the card shows what the decision returned until the version moves.
  const [decided, setDecided] = useState<{ version: number; approval: Approval } | null>(null);
  const shown =
    decided && decided.version === props.view.version ? decided.approval : approval.data;
  if (approval.error)
    return <ProblemBox error={approval.error} title="The approval could not be read" />;
  if (!shown)
    return approval.loading ? (
      <Loading label="Reading the approval" />
    ) : (
      <p>No pending approval found.</p>
    );
  return (
    <ApprovalCard
      approval={shown}
      onDecided={(next: Approval) => {
        setDecided({ version: props.view.version, approval: next });
        props.onChanged();
      }}
    />
  );
}

function EventForm(props: { view: ExecutionView; eventType: string; onChanged: () => void }) {
  const caller = useCaller();
  const [type, setType] = useState(props.eventType);
  const [data, setData] = useState('{}');
  const [errors, setErrors] = useState<{
    type?: string | undefined;
    data?: string | undefined;
    other?: string | undefined;
  }>({});
  const [busy, setBusy] = useState(false);
  useEffect(() => setType(props.eventType), [props.eventType]);
  if (!can(caller, 'operator')) return <p class="muted">An operator can deliver the event.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    let parsed: unknown = null;
    if (data.trim() !== '') {
      try {
        parsed = JSON.parse(data);
      } catch (e) {
        setErrors({ data: `Not JSON: ${messageOf(e)}` });
        return;
      }
    }
    setBusy(true);
    setErrors({});
    try {
      await api.post(`/v1/executions/${seg(props.view.executionId)}/events`, {
        type,
        data: parsed,
      });
      notify(`Event ${type} delivered`);
      props.onChanged();
    } catch (e) {
      if (e instanceof ApiError)
        setErrors({ type: e.field('type'), data: e.field('data'), other: e.detail });
      else setErrors({ other: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="event-form" onSubmit={(e) => void submit(e)} aria-label="Send an event">
      <Field id="event-type" label="Event type" error={errors.type}>
        <input
          {...describedBy('event-type', errors.type)}
          value={type}
          onInput={(e) => setType(e.currentTarget.value)}
          required
        />
      </Field>
      <Field id="event-data" label="Data (JSON)" error={errors.data}>
        <textarea
          {...describedBy('event-data', errors.data)}
          class="code"
          rows={4}
          spellcheck={false}
          value={data}
          onInput={(e) => setData(e.currentTarget.value)}
        />
      </Field>
      {errors.other && !errors.type && !errors.data ? (
        <p class="field-error" role="alert">
          {errors.other}
        </p>
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        Send event
      </button>
    </form>
  );
}

/** Why the execution ended: a failure as an alert; a cancel, somebody's decision, said plainly. */
function ErrorNote({ view, error }: { view: ExecutionView; error: ErrorView }) {
  const cancelled = view.status === 'cancelled';
  return (
    <div
      class={cancelled ? 'problem cancelled-note' : 'problem'}
      role={cancelled ? undefined : 'alert'}
    >
      <strong>
        {cancelled ? 'Cancelled' : 'Failed'}
        {error.nodeId ? ` at ${error.nodeId}` : ''}:
      </strong>{' '}
      {error.message} {!cancelled && error.code !== null ? <code>{String(error.code)}</code> : null}
    </div>
  );
}

/** Running, but no worker holds its lease: what happened, and that nothing is lost. */
function NoWorkerNote() {
  return (
    <div class="problem stalled-note" role="status">
      <strong>No worker is running it right now.</strong> Its worker stopped or let it go (a crash,
      a shutdown, a store outage). It goes on from its last checkpoint when its message is delivered
      again, within the queue's visibility timeout (30 s by default): the node it was in runs again,
      the nodes it finished do not.
    </div>
  );
}

function NodeDetails(props: {
  nodeId: string | null;
  view: ExecutionView;
  def: FlowNode | undefined;
  onClose: () => void;
}) {
  const { nodeId, view } = props;
  if (!nodeId)
    return (
      <div class="card muted node-details empty-details">
        <h2>Node</h2>
        <p>Select a node in the graph or the timeline to see its definition, output and error.</p>
      </div>
    );
  const node = view.nodes.find((n) => n.nodeId === nodeId);
  const failed = view.error?.nodeId === nodeId ? view.error : undefined;
  const waitedFor = node ? waitedMs(view, node, Date.now()) : null;
  const outcome = node ? approvalOutcome(node) : null;
  return (
    <section class="card node-details" aria-labelledby="node-title">
      <div class="card-head">
        <h2 id="node-title">
          <code>{nodeId}</code>
        </h2>
        <button
          type="button"
          class="icon-button"
          aria-label="Close node details"
          onClick={props.onClose}
        >
          ✕
        </button>
      </div>
      <p>
        {node ? <StatusBadge status={node.status} /> : <StatusBadge status="not reached" />}{' '}
        <span class="muted">
          {node?.type ?? (typeof props.def?.type === 'string' ? props.def.type : '')}
        </span>
      </p>
      {node ? (
        // Keyed by execution too: the page stays mounted when a rerun opens the new execution.
        <RerunFromNode
          key={`${view.executionId}/${nodeId}`}
          executionId={view.executionId}
          nodeId={nodeId}
        />
      ) : null}
      {node ? (
        <dl class="facts">
          <dt>Started</dt>
          <dd>
            <Time iso={node.startedAt} />
          </dd>
          <dt>Duration</dt>
          <dd>{formatDuration(node.durationMs)}</dd>
          {waitedFor !== null ? (
            <>
              <dt>{node.status === 'waiting' ? 'Waiting for' : 'Waited'}</dt>
              <dd>{formatDuration(waitedFor)}</dd>
            </>
          ) : null}
          <dt>Attempts</dt>
          <dd>{node.attempts}</dd>
          {outcome ? (
            <>
              <dt>Decision</dt>
              <dd>
                <strong>{outcome.decision}</strong>
                <ul class="plain-list">
                  {outcome.details.map((d) => (
                    <li key={d.approver}>
                      {d.approver}: {d.decision}
                      {d.comment ? ` — “${d.comment}”` : ''}
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          ) : null}
        </dl>
      ) : null}
      {failed ? (
        <details open class="section">
          <summary>Error</summary>
          <JsonView value={failed} label={`error of ${nodeId}`} />
        </details>
      ) : null}
      <details open class="section">
        <summary>Output</summary>
        {node && node.output !== null ? (
          <JsonView value={node.output} label={`output of ${nodeId}`} />
        ) : (
          <p class="muted">none</p>
        )}
      </details>
      <details class="section">
        <summary>Input (the node’s definition)</summary>
        {props.def ? (
          <JsonView value={props.def} label={`definition of ${nodeId}`} openDepth={2} />
        ) : (
          <p class="muted">not in the document</p>
        )}
      </details>
    </section>
  );
}

/** Rows of the node timeline drawn at first (a 200-node run shows the rest on request). */
const TIMELINE_ROWS = 50;

function Timeline(props: {
  view: ExecutionView;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const { view } = props;
  const [all, setAll] = useState(false);
  // A long run shows its first rows, and the selected node's, until asked for all.
  const shown =
    all || view.nodes.length <= TIMELINE_ROWS
      ? view.nodes
      : view.nodes.filter((n, i) => i < TIMELINE_ROWS || n.nodeId === props.selected);
  const start = Date.parse(view.createdAt);
  const end = Math.max(
    Date.parse(view.endedAt ?? view.updatedAt),
    ...view.nodes.map((n) => Date.parse(n.endedAt ?? n.startedAt)),
    start + 1,
  );
  const now = Date.now();
  const span = Math.max(end, ...view.nodes.map((n) => (n.status === 'waiting' ? now : 0))) - start;
  /** The wait after a suspending node's own run, drawn lighter behind it. */
  const waitBar = (node: NodeView, waited: number) => {
    const from = Date.parse(node.endedAt ?? node.startedAt);
    return {
      left: `${Math.max(0, Math.min(100, ((from - start) / span) * 100)).toFixed(2)}%`,
      width: `${Math.max(0.5, Math.min(100, (waited / span) * 100)).toFixed(2)}%`,
    };
  };
  const bar = (node: NodeView) => {
    const left = ((Date.parse(node.startedAt) - start) / span) * 100;
    const width =
      (((node.endedAt ? Date.parse(node.endedAt) : end) - Date.parse(node.startedAt)) / span) * 100;
    return {
      left: `${Math.max(0, Math.min(100, left)).toFixed(2)}%`,
      width: `${Math.max(0.5, Math.min(100, width)).toFixed(2)}%`,
    };
  };
  return (
    <section aria-labelledby="timeline-title" class="below-fold">
      <h2 id="timeline-title">Node timeline</h2>
      <div class="table-wrap">
        <table class="data timeline" role="table">
          <thead role="rowgroup">
            <tr role="row">
              <th scope="col" role="columnheader">
                Node
              </th>
              <th scope="col" role="columnheader">
                Type
              </th>
              <th scope="col" role="columnheader">
                Status
              </th>
              <th scope="col" role="columnheader">
                Started
              </th>
              <th scope="col" role="columnheader" class="num">
                Duration
              </th>
              <th scope="col" role="columnheader" class="num">
                Attempts
              </th>
              <th scope="col" role="columnheader" class="wide-only">
                Span
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {shown.map((node) => {
              const waited = waitedMs(view, node, now);
              return (
                <tr
                  role="row"
                  key={node.nodeId}
                  class={props.selected === node.nodeId ? 'selected' : ''}
                >
                  <td role="cell" data-label="Node">
                    <button
                      type="button"
                      class="link-button mono node-id"
                      title={node.nodeId}
                      aria-pressed={props.selected === node.nodeId}
                      onClick={() => props.onSelect(node.nodeId)}
                    >
                      {node.nodeId}
                    </button>
                  </td>
                  <td role="cell" data-label="Type">
                    {node.type ?? '—'}
                  </td>
                  <td role="cell" data-label="Status">
                    <StatusBadge status={node.status} />
                  </td>
                  <td role="cell" data-label="Started">
                    <Time iso={node.startedAt} />
                  </td>
                  <td role="cell" data-label="Duration" class="num">
                    {formatDuration(node.durationMs)}
                    {waited !== null ? (
                      <span class="muted small wait-note">
                        {node.status === 'waiting' ? 'waiting' : 'waited'} {formatDuration(waited)}
                      </span>
                    ) : null}
                  </td>
                  <td role="cell" data-label="Attempts" class="num">
                    {node.attempts}
                  </td>
                  <td role="cell" class="wide-only span-cell" aria-hidden="true">
                    <div class="span-track">
                      {waited !== null ? (
                        <div class="span-bar span-wait" style={waitBar(node, waited)} />
                      ) : null}
                      <div class={`span-bar state-${node.status}`} style={bar(node)} />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {view.nodes.length === 0 ? <p class="empty">No node has started yet.</p> : null}
        {shown.length < view.nodes.length ? (
          <p class="empty">
            <button type="button" class="button small" onClick={() => setAll(true)}>
              Show all {view.nodes.length} nodes
            </button>
          </p>
        ) : null}
      </div>
    </section>
  );
}
