import { checkpointInput, nodeResults } from '../state/checkpoint-context.js';
import type { Flow } from '../flow/flow.js';
import type { ExecutionState, NodeTiming } from '../state/execution-state.js';
import type { ExecutionSummary } from '../store/execution-store.js';
import { getOwn } from '../util/own-record.js';
import { apiStatus, type ApiStatus } from './execution-status.js';
import { jsonView } from './json-view.js';

export type NodeStatus = 'done' | 'running' | 'waiting' | 'failed' | 'cancelled';

export interface NodeView {
  nodeId: string;
  type: string | null;
  status: NodeStatus;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  attempts: number;
  output: unknown;
}

export interface ErrorView {
  code: string | number | null;
  type: string | null;
  nodeId: string | null;
  message: string;
}

export interface ExecutionView {
  executionId: string;
  status: ApiStatus;
  tenantId: string;
  flowId: string | null;
  flowVersion: string | null;
  flowHash: string | null;
  input: unknown;
  result?: unknown;
  error?: ErrorView;
  waiting?: { nodeId: string; eventType: string; dueAt: string | null };
  nodes: NodeView[];
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  version: number;
  /** Ours: how many times an operator retried it (each limited; docs/http-api.md §4). */
  retries: number;
  replayOf?: string;
  /** A rerun: the execution it reruns, and the node it ran from (docs/http-api.md §4 rerun). */
  rerunOf?: string;
  fromNode?: string;
  /**
   * Ours, for a running execution only: the worker holding its lease and until when, or null
   * when none does (its worker stopped or gave it up; it goes on when its message is delivered
   * again). docs/http-api.md §4.
   */
  lease?: LeaseView | null;
}

/** What an execution was made from, when an operator made it from another (execution_meta). */
export interface ExecutionLineage {
  replayOf?: string;
  rerunOf?: string;
  fromNode?: string;
}

export interface LeaseView {
  owner: string;
  expiresAt: string;
}

/** The whole view of docs/http-api.md §4 `GET /v1/executions/{id}`, from the state and its pinned flow. */
export function executionView(
  state: ExecutionState,
  flow: Flow | null,
  lineage: ExecutionLineage | null,
  lease?: LeaseView | null,
): ExecutionView {
  const view: ExecutionView = {
    executionId: state.executionId,
    status: apiStatus(state.status),
    tenantId: state.tenantId,
    flowId: state.flowId,
    flowVersion: state.flowVersion,
    flowHash: state.flowHash,
    input: jsonView(checkpointInput(state.context) ?? null),
    nodes: nodeTimeline(state, flow),
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    endedAt: state.endedAt,
    version: state.version,
    retries: state.manualRetries,
  };
  if (state.status === 'completed') view.result = jsonView(state.result);
  if (state.error) view.error = errorView(state.error);
  if (state.status === 'suspended' && state.waiting)
    view.waiting = {
      nodeId: state.waiting.nodeId,
      eventType: state.waiting.eventType,
      dueAt: state.waiting.dueAt,
    };
  if (lineage?.replayOf) view.replayOf = lineage.replayOf;
  if (lineage?.rerunOf) {
    view.rerunOf = lineage.rerunOf;
    if (lineage.fromNode) view.fromNode = lineage.fromNode;
  }
  if (state.status === 'running' && lease !== undefined) view.lease = lease;
  return view;
}

/** One row of `GET /v1/executions`: the header, no context. */
export function summaryView(summary: ExecutionSummary) {
  return {
    executionId: summary.executionId,
    status: apiStatus(summary.status),
    flowId: summary.flowId,
    flowVersion: summary.flowVersion,
    flowHash: summary.flowHash,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    endedAt: summary.endedAt,
    ...(summary.error ? { error: errorView(summary.error) } : {}),
    ...(summary.status === 'suspended' && summary.waiting
      ? {
          waiting: {
            nodeId: summary.waiting.nodeId,
            eventType: summary.waiting.eventType,
            dueAt: summary.waiting.dueAt,
          },
        }
      : {}),
  };
}

function errorView(error: NonNullable<ExecutionState['error']>): ErrorView {
  const type = error.details?.type;
  return {
    code: error.code,
    type: typeof type === 'string' ? type : null,
    nodeId: error.node ?? null,
    message: error.message,
  };
}

/**
 * Nodes by the start of their latest visit, ties in the order the timings were recorded. Not by
 * the map's own order alone: JavaScript puts integer-like keys first (a node with id `"2"`), and
 * a node a loop revisited carries its latest start.
 */
function nodeTimeline(state: ExecutionState, flow: Flow | null): NodeView[] {
  const results = nodeResults(state.context);
  const entries = Object.entries(state.timings).sort(([, a], [, b]) =>
    a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0,
  );
  return entries.map(([nodeId, timing]) => ({
    nodeId,
    type: flow?.nodesById.get(nodeId)?.def.type ?? null,
    status: nodeStatus(state, nodeId, timing),
    startedAt: timing.startedAt,
    endedAt: timing.endedAt,
    durationMs: timing.durationMs,
    attempts: timing.attempts,
    output: Object.hasOwn(results, nodeId) ? jsonView(getOwn(results, nodeId)) : null,
  }));
}

function nodeStatus(state: ExecutionState, nodeId: string, timing: NodeTiming): NodeStatus {
  if (state.status === 'suspended' && state.waiting?.nodeId === nodeId) return 'waiting';
  if (state.status === 'error' && state.error?.node === nodeId) return 'failed';
  // The node a cancel cut short (its timing was closed by the cancel).
  if (state.status === 'cancelled' && state.error?.node === nodeId) return 'cancelled';
  if (timing.endedAt !== null) return 'done';
  if (state.status === 'cancelled') return 'cancelled';
  if (state.status === 'error') return 'failed';
  return 'running';
}
