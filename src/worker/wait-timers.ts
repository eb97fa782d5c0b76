import type { ExecutionState } from '../state/execution-state.js';
import { DEFAULT_TENANT } from '../store/execution-store.js';

/** What a durable timer does when it fires. */
export type TimerKind = 'delay' | 'timeout';

/**
 * Stable per suspension: the same visit of the same node always gets the same timer id. Timer
 * ids are unique per queue (dedup and cancel go by them) while execution ids are unique per
 * tenant only, so another tenant's id carries its tenant first, with `:` and `/` escaped (the
 * parse below reads from the end and skips what comes before the node id). The default tenant
 * keeps the bare form timers were written in before, unless its execution id has a `/` (a
 * child's does): that one starts `%/`, which no escaped tenant can, so the default tenant's
 * `acme/order-1` never names tenant `acme`'s `order-1` timer.
 */
export function timerId(
  tenantId: string,
  executionId: string,
  nodeId: string,
  visit: number,
  kind: TimerKind,
): string {
  const tenant =
    tenantId !== DEFAULT_TENANT
      ? `${tenantId.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\//g, '%2F')}/`
      : executionId.includes('/')
        ? '%/'
        : '';
  return `${tenant}${executionId}:${nodeId}:${visit}:${kind}`;
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

export function visitOf(state: ExecutionState, nodeId: string): number {
  const visits = state.context.$VISITS as Record<string, number> | undefined;
  return visits && Object.hasOwn(visits, nodeId) ? visits[nodeId]! : 0;
}
