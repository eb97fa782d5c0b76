import { getOwn } from '../util/own-record.js';
import type { Context } from '../expression/scope.js';
import type { LoadedNode } from '../flow/flow.js';
import type { ResumeType } from '../flow/node-type.js';
import type { Execution } from './execution.js';
import { nodeExecutionError, resumeError } from './flow-failures.js';
import { createNodeContext } from './node-context.js';
import { makeStep, type Step } from './step.js';

/** What a suspended execution waits for (docs/flow-format.md §3.17), for the host to persist. */
export interface Waiting {
  nodeId: string;
  eventType: string;
  filter: Record<string, unknown>;
  /** Epoch ms when a timer should fire (`delay` nodes), else null. */
  dueAt: number | null;
  /**
   * How long before a `timeout` resume (ms), null: for ever — the node's `timeout`, else what
   * its type declares (`NodeType.wait`).
   */
  timeoutMs: number | null;
  /** What fires at the due time: a `delay` (an event resume), a `timeout`, or nothing. */
  timer: 'delay' | 'timeout' | null;
  /** A `delay` timer's event fields beyond the common ones (the type's `NodeWait.timerData`). */
  timerData: Record<string, unknown> | null;
  subscriptionId: string | null;
  /** The visit of the node that waits (1 on its first). */
  visit: number;
}

type NodeState = Record<string, unknown>;

function stateOf(execution: Execution, nodeId: string): NodeState | null {
  const value = getOwn(execution.nodeResults, nodeId);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as NodeState)
    : null;
}

/** The id of the suspending node the execution still waits on, or null. */
export function pendingSuspension(execution: Execution): string | null {
  const last = execution.context.$LAST_NODE;
  if (typeof last !== 'string') return null;
  const node = execution.flow.nodesById.get(last);
  return node?.nodeType.suspending && isPendingIn(execution.context, last) ? last : null;
}

/** Whether `nodeId` is the checkpoint's last node and its result is still `pending`. */
export function isPendingIn(context: Context, nodeId: string): boolean {
  if (context.$LAST_NODE !== nodeId) return false;
  const results = context.$NODE;
  if (typeof results !== 'object' || results === null) return false;
  const result = getOwn(results as Record<string, unknown>, nodeId);
  return (result as { status?: unknown } | null | undefined)?.status === 'pending';
}

/**
 * Distributed suspension: registers the subscription with the host and stores its id in the
 * node's state. It never suspends without a subscription: no `events` or a failed subscribe
 * marks the state `error` and fails the step.
 */
export async function suspendNode(
  execution: Execution,
  node: LoadedNode,
  result: unknown,
): Promise<{ step: Step; waiting: Waiting }> {
  const id = node.def.id;
  const state: NodeState =
    typeof result === 'object' && result !== null
      ? { ...(result as NodeState) }
      : { status: 'pending' };
  const eventType = typeof state.event_type === 'string' ? state.event_type : '';
  const filter = (state.event_filter ?? {}) as Record<string, unknown>;
  const events = execution.options.events;
  let subscriptionId: string;
  try {
    if (!events) throw new Error('the host provides no event subscriptions (options.events)');
    subscriptionId = await events.subscribe({
      eventType,
      filter,
      correlationId: execution.executionId,
      flowId: execution.flow.id,
      nodeId: id,
      visit: execution.visitsOf(id),
      state,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    execution.replaceResult(id, { ...state, status: 'error', error_message: message });
    throw nodeExecutionError(
      node,
      -500,
      `node '${id}' could not subscribe to '${eventType}': ${message}`,
      error,
    );
  }
  const suspended = { ...state, subscription_id: subscriptionId };
  execution.replaceResult(id, suspended);
  await execution.fire('onNodeSuspend', { node: id });
  await execution.fire('onFlowSuspend', { node: id });
  const dueAt = triggerTimeOf(state);
  const declared = node.nodeType.wait?.(node.def) ?? {};
  const timeoutMs = node.def.timeoutMs ?? declared.timeoutMs ?? null;
  const timer = timerKind(node, state) ?? (timeoutMs !== null ? 'timeout' : null);
  return {
    step: makeStep(execution, node, suspended, { isSuspend: true }),
    waiting: {
      nodeId: id,
      eventType,
      filter,
      dueAt,
      timeoutMs,
      timer,
      timerData: timer === 'delay' ? timerDataOf(node, suspended) : null,
      subscriptionId,
      visit: execution.visitsOf(id),
    },
  };
}

/** The planned wake-up a suspended state carries (`service_config.trigger_timestamp`), or null. */
function triggerTimeOf(suspended: unknown): number | null {
  const config = (suspended as { service_config?: { trigger_timestamp?: unknown } } | null)
    ?.service_config;
  return typeof config?.trigger_timestamp === 'number' ? config.trigger_timestamp : null;
}

/**
 * Which timer a suspended node's planned wake-up is: `delay` (delivered as the type's event)
 * when its type declares one, else `timeout`; null when it planned none (a timeout may still
 * come from the node's `timeoutMs`). One rule for arming it now and re-arming it later.
 */
export function timerKind(node: LoadedNode, suspended: unknown): 'delay' | 'timeout' | null {
  if (triggerTimeOf(suspended) === null) return null;
  return node.nodeType.wait?.(node.def).delay ? 'delay' : 'timeout';
}

/**
 * What a `delay` timer of `node` delivers beside the common fields, from its suspended state
 * (as stored, or as just suspended): the node type's declaration, so a host knows no fields.
 */
export function timerDataOf(node: LoadedNode, suspended: unknown): Record<string, unknown> | null {
  const declared = node.nodeType.wait?.(node.def).timerData;
  if (!declared) return null;
  const state =
    typeof suspended === 'object' && suspended !== null && !Array.isArray(suspended)
      ? (suspended as Record<string, unknown>)
      : {};
  return declared(state);
}

/** docs/flow-format.md §6.5 (3): applies an event/timeout/cancel to the pending node, as its new result. */
export async function resumeNode(
  execution: Execution,
  type: ResumeType,
  data: unknown,
): Promise<Step> {
  const lastId = execution.context.$LAST_NODE;
  const node = typeof lastId === 'string' ? execution.flow.nodesById.get(lastId) : undefined;
  if (!node || typeof lastId !== 'string') throw resumeError('no suspended node to resume', null);
  if (!node.nodeType.suspending)
    throw resumeError(`node '${lastId}' is not a suspending node`, lastId);
  let state = stateOf(execution, lastId);
  if (state?.status !== 'pending')
    throw resumeError(`node '${lastId}' is not pending (status: ${String(state?.status)})`, lastId);
  await execution.fire('onFlowResume', { node: lastId, resumeType: type, data });
  await execution.fire('onNodeResume', { node: lastId, resumeType: type, data });
  const ctx = createNodeContext(execution, node, execution.budget, execution.visitsOf(lastId), 1);
  if (node.nodeType.leavesValuesAlone !== true) {
    // Host code gets the pending state itself: detached from the checkpoint first, as its reads
    // are (NodeType.leavesValuesAlone).
    execution.beforeMutationUpwards();
    state = stateOf(execution, lastId) ?? state;
  }
  const resumed = (await node.resume(ctx, type, data, state)) as NodeState;
  execution.replaceResult(lastId, resumed);
  await releaseSubscription(execution, state.subscription_id);
  await execution.fire('onNodeEnd', { node: lastId, result: resumed });
  return makeStep(execution, node, resumed, { isSuspend: false, isEnd: false, branch: '' });
}

async function releaseSubscription(execution: Execution, subscriptionId: unknown): Promise<void> {
  const events = execution.options.events;
  if (!events?.unsubscribe || typeof subscriptionId !== 'string') return;
  try {
    await events.unsubscribe(subscriptionId);
  } catch (error) {
    execution.log.warn({ subscriptionId, err: error }, 'unsubscribe failed; ignored');
  }
}
