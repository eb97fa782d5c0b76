import type { Flow } from '../flow/flow.js';
import type { ExecutionState } from '../state/execution-state.js';

/** What a durable timer does when it fires. */
export type TimerKind = 'delay' | 'timeout';

/** Stable per suspension: the same visit of the same node always gets the same timer id. */
export function timerId(
  executionId: string,
  nodeId: string,
  visit: number,
  kind: TimerKind,
): string {
  return `${executionId}:${nodeId}:${visit}:${kind}`;
}

export function parseTimerId(
  id: string,
): { nodeId: string; visit: number; kind: TimerKind } | null {
  const parts = id.split(':');
  const kind = parts.at(-1);
  const visit = Number(parts.at(-2));
  if (parts.length < 4 || (kind !== 'delay' && kind !== 'timeout') || !Number.isInteger(visit))
    return null;
  return { nodeId: parts.slice(1, -2).join(':'), visit, kind };
}

/**
 * How long a suspended node waits before a `timeout` resume: the node's own `timeout`, else
 * the type's wait setting (`callback_timeout_minutes`, `timeout_seconds` > 0). Null = forever.
 */
export function waitTimeoutMs(flow: Flow, nodeId: string): number | null {
  const node = flow.nodesById.get(nodeId);
  if (!node) return null;
  if (node.def.timeoutMs !== null) return node.def.timeoutMs;
  const def = node.def as Record<string, unknown>;
  if (node.def.type === 'http_callback' && typeof def.timeoutMinutes === 'number')
    return def.timeoutMinutes * 60_000;
  if (
    node.def.type === 'redis_queue' &&
    typeof def.timeoutSeconds === 'number' &&
    def.timeoutSeconds > 0
  )
    return def.timeoutSeconds * 1000;
  return null;
}

export function visitOf(state: ExecutionState, nodeId: string): number {
  const visits = state.context.$VISITS as Record<string, number> | undefined;
  return visits && Object.hasOwn(visits, nodeId) ? visits[nodeId]! : 0;
}
