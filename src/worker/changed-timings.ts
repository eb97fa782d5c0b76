import type { NodeTiming } from '../state/execution-state.js';
import { getOwn } from '../util/own-record.js';

/**
 * The `timings` ids an incremental save must write: added, changed or removed since the saved
 * state. A step changes one or two (the node that ran, the next one started), so the store
 * writes those entries, not every node's timing again.
 */
export function changedTimings(
  saved: Readonly<Record<string, NodeTiming>>,
  next: Readonly<Record<string, NodeTiming>>,
): string[] {
  if (saved === next) return [];
  const changed: string[] = [];
  for (const id of Object.keys(next)) {
    const before = getOwn(saved, id);
    if (before === undefined || !sameTiming(before, next[id]!)) changed.push(id);
  }
  for (const id of Object.keys(saved)) if (!Object.hasOwn(next, id)) changed.push(id);
  return changed;
}

function sameTiming(a: NodeTiming, b: NodeTiming): boolean {
  return (
    a === b ||
    (a.startedAt === b.startedAt &&
      a.endedAt === b.endedAt &&
      a.attempts === b.attempts &&
      Object.is(a.durationMs, b.durationMs))
  );
}
