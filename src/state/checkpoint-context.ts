import { getOwn } from '../util/own-record.js';

/**
 * Reads of the engine's checkpoint context (docs/flow-format.md §6.6) for everything outside
 * the engine: the worker, the stores, the server and the CLI read an execution's input, its
 * node results and visits through these, never through the `$`-keys themselves, so the
 * checkpoint's layout has one owner.
 */
export type CheckpointContext = Readonly<Record<string, unknown>>;

const NO_RESULTS: Readonly<Record<string, unknown>> = Object.freeze({});

/** The execution's input (`$INPUT`), undefined when it has none. */
export function checkpointInput(context: CheckpointContext): unknown {
  return context.$INPUT;
}

/** Whether the checkpoint carries an input at all (an input may be null). */
export function hasCheckpointInput(context: CheckpointContext): boolean {
  return Object.hasOwn(context, '$INPUT');
}

/** Every node's latest result, by node id (`$NODE`), in the order they were first recorded. */
export function nodeResults(context: CheckpointContext): Readonly<Record<string, unknown>> {
  const results = context.$NODE;
  return typeof results === 'object' && results !== null && !Array.isArray(results)
    ? (results as Record<string, unknown>)
    : NO_RESULTS;
}

/** One node's latest result, undefined when it has none (never an inherited property). */
export function nodeResult(context: CheckpointContext, nodeId: string): unknown {
  return getOwn(nodeResults(context), nodeId);
}

/** How many times `nodeId` was visited (`$VISITS`); 0 when never. */
export function nodeVisit(context: CheckpointContext, nodeId: string): number {
  const visits = context.$VISITS;
  if (typeof visits !== 'object' || visits === null) return 0;
  const count = getOwn(visits as Record<string, unknown>, nodeId);
  return typeof count === 'number' ? count : 0;
}

/** The visit counts by node id, in the order nodes were first visited. */
export function nodeVisits(context: CheckpointContext): Readonly<Record<string, number>> {
  const visits = context.$VISITS;
  return typeof visits === 'object' && visits !== null
    ? (visits as Record<string, number>)
    : (NO_RESULTS as Record<string, number>);
}

/** The node the last step ran (`$LAST_NODE`), null before the first. */
export function lastNode(context: CheckpointContext): string | null {
  const last = context.$LAST_NODE;
  return typeof last === 'string' ? last : null;
}

/** Whether a step has run: a queued execution's context holds only its input. */
export function hasStarted(context: CheckpointContext): boolean {
  return typeof context.$EXECUTION_ID === 'string';
}
