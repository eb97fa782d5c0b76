import { getOwn, withOwn } from '../util/own-record.js';
import { isPendingIn, type Waiting } from '../engine/suspension.js';
import type { Context } from '../expression/scope.js';
import type { ErrorRecord } from '../errors/plaita-error.js';
import type { ErrorCause, FlowError } from '../errors/flow-errors.js';
import type {
  ExecutionState,
  ExecutionStatus,
  NodeTiming,
  WaitingOn,
} from '../state/execution-state.js';

/**
 * Pure builders of the next state. The worker persists what they return (fenced); nothing
 * here touches a store. `now` is passed in so tests can pin time.
 */

function next(state: ExecutionState, patch: Partial<ExecutionState>, now: Date): ExecutionState {
  return { ...state, ...patch, updatedAt: now.toISOString() };
}

function ended(status: ExecutionStatus, now: Date): Partial<ExecutionState> {
  return { status, endedAt: now.toISOString(), waiting: null };
}

/**
 * Counts one more start of `nodeId` before it runs: `attempts` (total starts, visible to
 * operators) and `timings[nodeId].attempts` (starts of the current, unfinished visit — the
 * crash-loop guard; a node legitimately revisited in a loop starts a new visit at 1).
 */
export function countStart(
  state: ExecutionState,
  nodeId: string | null,
  now: Date,
): Pick<ExecutionState, 'attempts' | 'timings'> {
  if (nodeId === null) return { attempts: state.attempts, timings: state.timings };
  const previous = getOwn(state.timings, nodeId);
  const restart = previous !== undefined && previous.endedAt === null;
  return {
    attempts: withOwn(state.attempts, nodeId, (getOwn(state.attempts, nodeId) ?? 0) + 1),
    timings: withOwn<NodeTiming>(state.timings, nodeId, {
      startedAt: now.toISOString(),
      endedAt: null,
      attempts: restart ? previous.attempts + 1 : 1,
      durationMs: null,
    }),
  };
}

/**
 * The entry node (`start`) runs in the first step, just before the node after it, with no
 * start of its own counted: it gets a closed, zero-length timing at the time the first step
 * started, first in the map, so the timeline lists every node that ran, in order.
 */
export function withEntryTiming(state: ExecutionState, entryId: string | null): ExecutionState {
  if (entryId === null || getOwn(state.timings, entryId) !== undefined) return state;
  // The earliest start, not the map's first entry: integer-like ids come first in a JS object.
  const starts = Object.values(state.timings).map((t) => t.startedAt);
  const at = starts.length > 0 ? starts.reduce((a, b) => (b < a ? b : a)) : state.updatedAt;
  return {
    ...state,
    attempts: withOwn(state.attempts, entryId, (getOwn(state.attempts, entryId) ?? 0) + 1),
    timings: {
      [entryId]: { startedAt: at, endedAt: at, attempts: 1, durationMs: 0 },
      ...state.timings,
    },
  };
}

/** Starts of the current visit of `nodeId` that never finished (0 when it is not mid-visit). */
export function unfinishedStarts(state: ExecutionState, nodeId: string | null): number {
  const timing = nodeId === null ? undefined : getOwn(state.timings, nodeId);
  return timing && timing.endedAt === null ? timing.attempts : 0;
}

export function toRunning(
  state: ExecutionState,
  nextNode: string | null,
  now: Date,
): ExecutionState {
  return next(
    state,
    { status: 'running', waiting: null, ...countStart(state, nextNode, now) },
    now,
  );
}

/** After a step: the new checkpoint, the node's timing closed, and the next node's start counted. */
export function afterStep(
  state: ExecutionState,
  context: Context,
  nodeId: string | null,
  nextNode: string | null,
  now: Date,
): ExecutionState {
  const closed = closeTiming(state, nodeId, now);
  return next(closed, { status: 'running', context, ...countStart(closed, nextNode, now) }, now);
}

function closeTiming(state: ExecutionState, nodeId: string | null, now: Date): ExecutionState {
  const timing = nodeId === null ? undefined : getOwn(state.timings, nodeId);
  if (!timing || nodeId === null || timing.endedAt !== null) return state;
  const startedAt = Date.parse(timing.startedAt);
  return {
    ...state,
    timings: withOwn<NodeTiming>(state.timings, nodeId, {
      ...timing,
      endedAt: now.toISOString(),
      durationMs: now.getTime() - startedAt,
    }),
  };
}

export function toCompleted(
  state: ExecutionState,
  context: Context,
  nodeId: string | null,
  result: unknown,
  now: Date,
): ExecutionState {
  return next(
    closeTiming(state, nodeId, now),
    { ...ended('completed', now), context, result, error: null },
    now,
  );
}

/** An event the waiting node took without leaving its wait: the new context, still suspended. */
export function toStillWaiting(state: ExecutionState, context: Context, now: Date): ExecutionState {
  return next(state, { context, waiting: resumeFinished(state.waiting) }, now);
}

/**
 * Counts one more delivery to the waiting node before it resumes (the crash-loop guard: a
 * delivery that kills its worker is redelivered, and counted again).
 */
export function withResumeCounted(state: ExecutionState, now: Date): ExecutionState {
  const waiting = state.waiting;
  if (waiting === null) return state;
  return next(state, { waiting: { ...waiting, resumes: (waiting.resumes ?? 0) + 1 } }, now);
}

/** Deliveries to the waiting node begun and not finished (0 when none). */
export function unfinishedResumes(state: ExecutionState): number {
  return state.waiting?.resumes ?? 0;
}

function resumeFinished(waiting: WaitingOn | null): WaitingOn | null {
  if (waiting?.resumes === undefined) return waiting;
  const { resumes: _finished, ...rest } = waiting;
  return rest;
}

export function toSuspended(
  state: ExecutionState,
  context: Context,
  waiting: Waiting,
  dueAt: number | null,
  now: Date,
): ExecutionState {
  state = closeTiming(state, waiting.nodeId, now);
  const on: WaitingOn = {
    nodeId: waiting.nodeId,
    eventType: waiting.eventType,
    filter: waiting.filter,
    dueAt: dueAt === null ? null : new Date(dueAt).toISOString(),
    visit: waiting.visit,
    timer: dueAt === null ? null : (waiting.timer ?? 'timeout'),
    timerData: waiting.timerData,
  };
  if (waiting.subscriptionId !== null) on.subscriptionId = waiting.subscriptionId;
  return next(state, { status: 'suspended', context, waiting: on }, now);
}

/** The flow itself failed (a node aborted, an end error): the record keeps the node's own code. */
export function flowErrorRecord(error: FlowError): ErrorRecord {
  const original: {
    name?: string;
    message?: string;
    code?: string | number | null;
    type?: string;
  } | null = (error.cause as ErrorCause | undefined) ?? null;
  const code = original?.code ?? error.code;
  const record: ErrorRecord = {
    // NaN or an infinity cannot be stored (the record's schema): null, the real error kept.
    code: typeof code === 'number' && !Number.isFinite(code) ? null : code,
    name: original?.name ?? error.name,
    message: original?.message ?? error.message,
    retryable: false,
    details: { type: original?.type ?? error.type, flowError: error.toJSON() },
  };
  if (error.node !== null) record.node = error.node;
  return record;
}

/** The last good checkpoint stays as the context: an error never stores what failed to store. */
/**
 * A terminal error decided by the worker. Failing while waiting (an event that could not be
 * delivered or stored), the record keeps what it waited for: an operator's retry waits again
 * (waiting means nothing while the status is `error`: the API shows it only when suspended).
 */
export function toError(state: ExecutionState, error: ErrorRecord, now: Date): ExecutionState {
  const waiting = pendingWait(state);
  // The node that failed ended then (the timeline shows its duration); a wait kept for a
  // retry stays open, as it is.
  const closed = waiting === null ? closeOpenTimings(state, now) : state;
  return next(closed, { ...ended('error', now), waiting, error }, now);
}

/** Every timing still open (the node under way when the execution ended), closed at `now`. */
function closeOpenTimings(state: ExecutionState, now: Date): ExecutionState {
  let closed = state;
  for (const [nodeId, timing] of Object.entries(state.timings))
    if (timing.endedAt === null) closed = closeTiming(closed, nodeId, now);
  return closed;
}

/** The wait of the checkpoint's last node while that node is still pending, else null. */
export function pendingWait(state: ExecutionState): ExecutionState['waiting'] {
  const waiting = state.waiting;
  return waiting !== null && isPendingIn(state.context, waiting.nodeId) ? waiting : null;
}

export function toCancelled(
  state: ExecutionState,
  reason: string | null,
  now: Date,
): ExecutionState {
  // The node the cancel cut short (under way, or waiting): the record names it, as an error's
  // does, so the timeline can show that node cancelled rather than done.
  const cut = pendingWait(state)?.nodeId ?? openNode(state);
  return next(
    closeOpenTimings(state, now),
    {
      ...ended('cancelled', now),
      error: reason
        ? {
            code: 'cancelled',
            name: 'Cancelled',
            message: reason,
            retryable: false,
            ...(cut === null ? {} : { node: cut }),
          }
        : null,
    },
    now,
  );
}

/** The node whose visit is under way (its timing still open), if any. */
function openNode(state: ExecutionState): string | null {
  for (const [nodeId, timing] of Object.entries(state.timings))
    if (timing.endedAt === null) return nodeId;
  return null;
}

/** An operator retry of an `error` execution that failed waiting: it waits again. */
export function toRewaiting(state: ExecutionState, now: Date): ExecutionState {
  return next(
    state,
    {
      status: 'suspended',
      // A fresh crash-loop budget for the deliveries to the node, as a retried start gets.
      waiting: resumeFinished(state.waiting),
      error: null,
      endedAt: null,
      result: null,
      manualRetries: state.manualRetries + 1,
    },
    now,
  );
}

/** An operator retry of an `error` execution: back to running from the last good checkpoint. */
export function toRetried(
  state: ExecutionState,
  nextNode: string | null,
  now: Date,
): ExecutionState {
  // A fresh crash-loop budget for the node that failed: its unfinished visit starts over.
  const timings = { ...state.timings };
  if (nextNode !== null) delete timings[nextNode];
  const fresh = { ...state, timings };
  return next(
    fresh,
    {
      status: 'running',
      error: null,
      endedAt: null,
      result: null,
      manualRetries: state.manualRetries + 1,
      ...countStart(fresh, nextNode, now),
    },
    now,
  );
}
