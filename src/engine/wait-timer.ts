import type { Flow } from '../flow/flow.js';
import { nodeResult, nodeVisit } from '../state/checkpoint-context.js';
import type { ExecutionState, WaitingOn } from '../state/execution-state.js';
import { timerDataOf, timerKind } from './suspension.js';

/** The durable timer a suspended execution's wait arms (docs/flow-format.md §3.17). */
export interface WaitTimer {
  nodeId: string;
  /** The visit of the node that waits: a later visit's wait never takes this timer. */
  visit: number;
  kind: 'delay' | 'timeout';
  /** Epoch ms. */
  dueAt: number;
}

/**
 * The timer `state`'s wait arms, or null when it waits for an event only. A wait recorded
 * before its timer was kept in the record is read from the flow as it was armed then; without
 * the flow such a wait's kind is unknown (null kind, both are candidates).
 */
export function timerOfWait(
  state: ExecutionState,
  flow: Flow | null,
): (Omit<WaitTimer, 'kind'> & { kind: WaitTimer['kind'] | null }) | null {
  const waiting = state.waiting;
  if (!waiting?.dueAt) return null;
  return {
    nodeId: waiting.nodeId,
    visit: waitVisit(state, waiting),
    kind: waiting.timer ?? (flow ? legacyTimerKind(flow, state, waiting.nodeId) : null),
    dueAt: Date.parse(waiting.dueAt),
  };
}

/** The visit that waits: kept in the record, or (older records) the node's visit count. */
export function waitVisit(state: ExecutionState, waiting: WaitingOn): number {
  return waiting.visit ?? nodeVisit(state.context, waiting.nodeId);
}

function legacyTimerKind(flow: Flow, state: ExecutionState, nodeId: string): WaitTimer['kind'] {
  const node = flow.nodesById.get(nodeId);
  return (node && timerKind(node, nodeResult(state.context, nodeId))) ?? 'timeout';
}

/**
 * The event a `delay` timer delivers to its waiting node when it fires at `firedAt` (epoch ms):
 * the common fields, the node type's own (`NodeWait.timerData`, which may set `delay_ms` but
 * never a field the runtime owns), then when it was planned and when it fired.
 */
export function delayTimerEvent(
  state: ExecutionState,
  flow: Flow | null,
  firedAt: number,
): Record<string, unknown> {
  const waiting = state.waiting;
  if (!waiting) throw new TypeError('delayTimerEvent: the execution is not waiting');
  const head = {
    node_id: waiting.nodeId,
    execution_id: state.executionId,
    flow_id: state.flowId,
    tenant_id: state.tenantId,
    trigger_type: 'delay_completed',
    delay_ms: null as unknown,
  };
  const tail = {
    actual_trigger_timestamp: firedAt,
    planned_trigger_timestamp: waiting.dueAt ? Date.parse(waiting.dueAt) : firedAt,
    success: true,
  };
  const extra = Object.entries(timerDataOfWait(state, waiting, flow) ?? {}).filter(
    ([key]) => key === 'delay_ms' || !(key in head || key in tail),
  );
  return { ...head, ...Object.fromEntries(extra), ...tail };
}

function timerDataOfWait(
  state: ExecutionState,
  waiting: WaitingOn,
  flow: Flow | null,
): Record<string, unknown> | null {
  if (waiting.timerData !== undefined) return waiting.timerData;
  const node = flow?.nodesById.get(waiting.nodeId);
  return node ? timerDataOf(node, nodeResult(state.context, waiting.nodeId)) : null;
}
