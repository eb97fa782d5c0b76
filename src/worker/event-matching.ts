import type { ExecutionState, InboxEvent, WaitingOn } from '../state/execution-state.js';

/** An event as the worker delivers it to a suspended node (docs/flow-format.md §3.17 envelope). */
export interface EventEnvelope {
  event_id: string;
  event_type: string;
  event_data: unknown;
  subscription_id: string | null;
}

export function envelope(
  eventId: string,
  type: string,
  data: unknown,
  waiting: WaitingOn,
): EventEnvelope {
  return {
    event_id: eventId,
    event_type: type,
    event_data: data,
    subscription_id: waiting.subscriptionId ?? null,
  };
}

/**
 * docs/flow-format.md §3.17 matching: the type equals the node's `event_type`, and each `event_filter`
 * entry (`"a.b.c": value`, a dotted path into the payload; literal value) equals the payload
 * value at that path.
 */
export function eventMatches(waiting: WaitingOn, type: string, data: unknown): boolean {
  if (type !== waiting.eventType) return false;
  for (const [path, expected] of Object.entries(waiting.filter)) {
    if (!jsonEqual(valueAt(data, path), expected)) return false;
  }
  return true;
}

function valueAt(data: unknown, path: string): unknown {
  let current = data;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** Whether an event of `type` with `data` goes to `state`'s waiting node now. */
export function isDeliverable(state: ExecutionState, type: string, data: unknown): boolean {
  const waiting = state.waiting;
  return state.status === 'suspended' && waiting !== null && eventMatches(waiting, type, data);
}

/** The first inbox event `state`'s waiting node waits for, in arrival order. */
export function inboxEventFor(state: ExecutionState): InboxEvent | undefined {
  const waiting = state.waiting;
  if (state.status !== 'suspended' || !waiting) return undefined;
  return state.inbox.find((e) => eventMatches(waiting, e.type, e.data));
}
