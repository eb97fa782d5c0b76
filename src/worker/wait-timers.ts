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

export function visitOf(state: ExecutionState, nodeId: string): number {
  const visits = state.context.$VISITS as Record<string, number> | undefined;
  return visits && Object.hasOwn(visits, nodeId) ? visits[nodeId]! : 0;
}
