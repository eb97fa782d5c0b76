import type { NodeContext, ResumeType } from '../../flow/node-type.js';
import { copyValue } from '../../util/copy-value.js';
import { isPromiseLike } from '../../util/maybe-promise.js';

/** The pending state every suspending node produces (docs/flow-format.md §3.17). */
export interface PendingState extends Record<string, unknown> {
  event_type: string;
  event_filter: Record<string, unknown>;
  is_async: true;
  event_id: string;
  status: 'pending';
}

export function pendingState(
  ctx: NodeContext<unknown>,
  eventType: string,
  eventFilter: Record<string, unknown>,
  now: number = ctx.clock.now(),
): PendingState {
  return {
    event_type: eventType,
    // A copy: the filter (like the config below) may be the definition's own object, and the
    // pending state is the execution's result, which a mutating `$F` may change.
    event_filter: copyValue(eventFilter) as Record<string, unknown>,
    is_async: true,
    event_id: `event_${ctx.nodeId}_${now}`,
    status: 'pending',
  };
}

/** What an external service needs to produce the event, plus the node's own configuration. */
export function serviceState(
  ctx: NodeContext<unknown>,
  eventType: string,
  eventFilter: Record<string, unknown>,
  config: Record<string, unknown>,
  now: number = ctx.clock.now(),
): PendingState {
  return {
    ...pendingState(ctx, eventType, eventFilter, now),
    service_config: {
      type: ctx.def.type,
      node_id: ctx.nodeId,
      execution_id: ctx.executionId,
      flow_id: ctx.flowId,
      event_type: eventType,
      event_filter: copyValue(eventFilter),
      retry_config: { max_retries: 3, retry_delay_ms: 1000, exponential_backoff: true },
      ...(copyValue(config) as Record<string, unknown>),
    },
    node_subtype: ctx.def.type,
  };
}

/**
 * Service-node fields: a string starting with `$` is evaluated; if that fails or yields null
 * the raw string is kept. Templates are not evaluated here (docs/flow-format.md §3.17).
 */
export async function serviceValue(ctx: NodeContext<unknown>, value: unknown): Promise<unknown> {
  if (typeof value !== 'string' || !value.startsWith('$')) return value;
  try {
    const evaluated = ctx.evaluate(value);
    const resolved = isPromiseLike(evaluated) ? await evaluated : evaluated;
    return resolved ?? value;
  } catch {
    return value;
  }
}

/**
 * An `event_type` given as a `$` reference must give a non-empty string; otherwise the raw text
 * is kept (docs/flow-format.md §3.18, the original's EventNode, which `delay` inherits).
 */
export async function eventTypeOf(ctx: NodeContext<unknown>, eventType: string): Promise<string> {
  if (!eventType.startsWith('$')) return eventType;
  // serviceValue gives the raw text back when the reference fails: that is not a resolution.
  const resolved = await serviceValue(ctx, eventType);
  if (resolved !== eventType && typeof resolved === 'string' && resolved !== '') return resolved;
  ctx.warn(`event_type ${eventType} did not give a non-empty string; the raw text is kept`);
  return eventType;
}

/** docs/flow-format.md §3.17 resume merge: event with data → completed; empty event → unchanged; timeout; cancel. */
export function mergeResume(
  state: Record<string, unknown>,
  type: ResumeType,
  data: unknown,
): Record<string, unknown> {
  switch (type) {
    case 'event':
      return isEmpty(data) ? { ...state } : { ...state, status: 'completed', event_data: data };
    case 'timeout':
      return { ...state, status: 'timeout' };
    case 'cancel':
      return { ...state, status: 'cancelled' };
  }
}

function isEmpty(data: unknown): boolean {
  if (data === null || data === undefined || data === '' || data === false || data === 0)
    return true;
  if (Array.isArray(data)) return data.length === 0;
  return typeof data === 'object' && Object.keys(data).length === 0;
}

export const resumeSuspended = (
  _ctx: NodeContext<unknown>,
  type: ResumeType,
  data: unknown,
  state: Record<string, unknown>,
): unknown => mergeResume(state, type, data);
