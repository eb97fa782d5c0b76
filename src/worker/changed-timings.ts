import type { NodeTiming } from '../state/execution-state.js';
import { getOwn } from '../util/own-record.js';

/**
 * The `timings` ids an incremental save must write: those added, changed, removed, or moved to
 * another place in the map since the saved state (stored timings keep their place: the map's
 * key order is the order nodes started). A step changes one or two (the node that ran, the next
 * one started), so the store writes those entries, not every node's timing again.
 */
export function changedTimings(
  saved: Readonly<Record<string, NodeTiming>>,
  next: Readonly<Record<string, NodeTiming>>,
): string[] {
  if (saved === next) return [];
  const savedIds = Object.keys(saved);
  const nextIds = Object.keys(next);
  const changed: string[] = [];
  // Once one id sits where the saved map had another (an operator retry moves the failed node
  // last), every id from there on has a new place.
  let moved = false;
  for (let i = 0; i < nextIds.length; i++) {
    const id = nextIds[i]!;
    moved ||= savedIds[i] !== id;
    const before = getOwn(saved, id);
    if (moved || before === undefined || !sameTiming(before, next[id]!)) changed.push(id);
  }
  for (const id of savedIds) if (!Object.hasOwn(next, id)) changed.push(id);
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
