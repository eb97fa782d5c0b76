/**
 * THE decision (docs/durable-contract.md §5 step 6): what happened while handling one message →
 * what state to write and what to do with the message. Pure: no I/O, no clock, no classes
 * checked with instanceof — failures are classified by their `code` and `retryable` fields.
 */

export type ExecutionErrorCode =
  | 'state_not_serializable'
  | 'state_too_large'
  | 'flow_definition_missing'
  | 'delivery_exhausted'
  | 'node_crash_loop'
  | 'internal_error';

/** What happened while handling a message. */
export type HandlingResult =
  | { kind: 'completed' }
  | { kind: 'suspended' }
  /** Nothing to do: a duplicate delivery, `run` on a suspended execution, an event kept in the inbox. */
  | { kind: 'no_op' }
  | { kind: 'cancelled' }
  /** A node failed and its error policy said abort (a FlowError). */
  | { kind: 'node_failed' }
  /** The execution is already terminal: the message is a late duplicate. */
  | { kind: 'already_terminal' }
  | { kind: 'malformed'; reason: string }
  | { kind: 'unknown_execution' }
  /** Another live worker holds the lease. */
  | { kind: 'lease_conflict' }
  | { kind: 'crash_loop'; nodeId: string }
  /** Any failure; `decide` classifies it by code and retryability. */
  | { kind: 'failure'; error: unknown };

export type MessageAction =
  /** Acknowledge: the outcome is durable. */
  | 'ack'
  /** Leave unacknowledged: redelivered after the visibility timeout. */
  | 'leave'
  /** Write the dead letter, then acknowledge. */
  | 'dead_letter'
  /** Re-enqueue the message with a short delay, then acknowledge (never simply drop it). */
  | 'requeue'
  /** Stop touching it, no ack: another worker took over; a later delivery is handled idempotently. */
  | 'abandon';

export interface StateWrite {
  status: 'error';
  errorCode: ExecutionErrorCode;
  /** Keep the last good checkpoint as the context (never the one that failed to store). */
  keepLastCheckpoint: true;
}

export interface Decision {
  /** The terminal state to write before acting on the message; null when nothing (more) is written. */
  write: StateWrite | null;
  action: MessageAction;
  /** Dead-letter reason (stable snake_case). */
  reason?: string;
}

export interface DecisionContext {
  deliveryCount: number;
  maxDeliveries: number;
}

/** How a thrown value is treated, read from its code / retryable fields along the cause chain. */
export type FailureClass =
  | 'serialization'
  | 'too_large'
  | 'fence'
  | 'flow_missing'
  | 'corrupt'
  | 'misconfigured'
  | 'transient'
  | 'permanent';

const MAX_CAUSE_DEPTH = 8;

const CLASS_BY_CODE: Readonly<Record<string, FailureClass>> = {
  state_not_serializable: 'serialization',
  state_too_large: 'too_large',
  fence_rejected: 'fence',
  flow_definition_missing: 'flow_missing',
  state_corrupt: 'corrupt',
  store_unavailable: 'transient',
  store_misconfigured: 'misconfigured',
  // This process closed its store or queue (a shutdown past its drain timeout): the work is cut
  // off, not failed; another worker takes the message again.
  store_closed: 'misconfigured',
  // The same, from the worker's side: it gave up the handling at its drain timeout.
  worker_stopped: 'misconfigured',
  lease_lost: 'transient',
};

/** Walks `error.cause` (bounded) for the first code we know; then falls back to `retryable`. */
export function classifyFailure(error: unknown): FailureClass {
  let retryable = false;
  let current: unknown = error;
  for (
    let depth = 0;
    depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null;
    depth++
  ) {
    const {
      code,
      retryable: flag,
      cause,
    } = current as { code?: unknown; retryable?: unknown; cause?: unknown };
    if (typeof code === 'string' && Object.hasOwn(CLASS_BY_CODE, code)) return CLASS_BY_CODE[code]!;
    if (flag === true) retryable = true;
    current = cause;
  }
  return retryable ? 'transient' : 'permanent';
}

const ACK: Decision = { write: null, action: 'ack' };

function terminalError(
  errorCode: ExecutionErrorCode,
  action: MessageAction = 'ack',
  reason?: string,
): Decision {
  const decision: Decision = {
    write: { status: 'error', errorCode, keepLastCheckpoint: true },
    action,
  };
  if (reason !== undefined) decision.reason = reason;
  return decision;
}

export function decide(result: HandlingResult, context: DecisionContext): Decision {
  switch (result.kind) {
    case 'completed':
    case 'suspended':
    case 'no_op':
    case 'cancelled':
    case 'node_failed':
    case 'already_terminal':
      return ACK; // the outcome was written before we got here
    case 'malformed':
      return { write: null, action: 'dead_letter', reason: 'malformed' };
    case 'unknown_execution':
      return { write: null, action: 'dead_letter', reason: 'unknown_execution' };
    case 'lease_conflict':
      return { write: null, action: 'requeue' };
    case 'crash_loop':
      return terminalError('node_crash_loop');
    case 'failure':
      return decideFailure(classifyFailure(result.error), context);
  }
}

function decideFailure(
  failure: FailureClass,
  { deliveryCount, maxDeliveries }: DecisionContext,
): Decision {
  switch (failure) {
    case 'serialization':
      return terminalError('state_not_serializable');
    case 'too_large':
      return terminalError('state_too_large');
    case 'flow_missing':
      return terminalError('flow_definition_missing');
    case 'fence':
      return { write: null, action: 'abandon' };
    case 'corrupt':
      // The stored state cannot be read: write nothing over it, keep the message for an operator.
      return { write: null, action: 'dead_letter', reason: 'state_corrupt' };
    case 'misconfigured':
      // The process is wrong (a revoked role, a dropped database), not the execution: never end
      // or dead-letter an execution for it, whatever the delivery count; an operator fixes it.
      return { write: null, action: 'leave' };
    case 'transient':
      // Redelivery heals it — until the budget of deliveries is spent: then end it observably.
      return deliveryCount >= maxDeliveries
        ? terminalError('delivery_exhausted', 'dead_letter', 'delivery_exhausted')
        : { write: null, action: 'leave' };
    case 'permanent':
      // An unexpected permanent failure of our own (not a node's): retrying will not help.
      return terminalError('internal_error', 'dead_letter', 'permanent_failure');
  }
}
