import { describe, expect, it } from 'vitest';
import {
  FenceRejectedError,
  StoreClosedError,
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../src/errors/store-errors.js';
import { FlowNotLoadableError } from '../../src/errors/flow-definition-errors.js';
import {
  StateCorruptError,
  StateSerializationError,
  StateTooLargeError,
} from '../../src/errors/state-errors.js';
import { WorkerStoppedError } from '../../src/errors/worker-errors.js';
import {
  classifyFailure,
  decide,
  type Decision,
  type HandlingResult,
} from '../../src/worker/decide.js';

const ack: Decision = { write: null, action: 'ack' };
const terminal = (
  errorCode: string,
  action: Decision['action'] = 'ack',
  reason?: string,
): Decision => ({
  write: { status: 'error', errorCode: errorCode as never, keepLastCheckpoint: true },
  action,
  ...(reason ? { reason } : {}),
});

/** docs/durable-contract.md §5 step 6, one row per line: what happened → state written + message action. */
const TABLE: Array<
  [string, HandlingResult, { deliveryCount: number; maxDeliveries: number }, Decision]
> = [
  ['reached an end node', { kind: 'completed' }, { deliveryCount: 1, maxDeliveries: 5 }, ack],
  [
    'suspended on an event/approval/delay node',
    { kind: 'suspended' },
    { deliveryCount: 1, maxDeliveries: 5 },
    ack,
  ],
  [
    'node failed and its error policy says abort',
    { kind: 'node_failed' },
    { deliveryCount: 1, maxDeliveries: 5 },
    ack,
  ],
  [
    'StateSerializationError on a checkpoint',
    { kind: 'failure', error: new StateSerializationError('$NODE.n.x', 'function') },
    { deliveryCount: 1, maxDeliveries: 5 },
    terminal('state_not_serializable'),
  ],
  [
    'StateTooLargeError on a checkpoint',
    { kind: 'failure', error: new StateTooLargeError(20, 10, []) },
    { deliveryCount: 1, maxDeliveries: 5 },
    terminal('state_too_large'),
  ],
  [
    'pinned flow definition missing',
    { kind: 'failure', error: { code: 'flow_definition_missing', retryable: false } },
    { deliveryCount: 1, maxDeliveries: 5 },
    terminal('flow_definition_missing'),
  ],
  [
    'pinned flow this worker cannot load (a plugin it lacks) → redelivered, for a worker that can',
    {
      kind: 'failure',
      error: new FlowNotLoadableError('unknown node type "crm.lookup"', {
        cause: { code: 'flow_definition_invalid', retryable: false },
      }),
    },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'pinned flow no worker could load within the budget → delivery_exhausted + dead letter',
    { kind: 'failure', error: new FlowNotLoadableError('unknown node type "crm.lookup"') },
    { deliveryCount: 5, maxDeliveries: 5 },
    terminal('delivery_exhausted', 'dead_letter', 'delivery_exhausted'),
  ],
  [
    'StoreUnavailableError → redelivered',
    { kind: 'failure', error: new StoreUnavailableError('down') },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'queue error (retryable) → redelivered',
    { kind: 'failure', error: { code: 'queue_unavailable', retryable: true } },
    { deliveryCount: 4, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'lease renewal failed → redelivered',
    { kind: 'failure', error: { code: 'lease_lost', retryable: false } },
    { deliveryCount: 2, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'store misconfigured (a revoked role) → left for redelivery, even past maxDeliveries',
    { kind: 'failure', error: new StoreConfigurationError('role "app" does not exist') },
    { deliveryCount: 9, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'store or queue closed by a shutdown → left for redelivery, even past maxDeliveries',
    { kind: 'failure', error: new StoreClosedError('the SQLite store for x.db is closed') },
    { deliveryCount: 9, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'the worker gave the handling up at its drain timeout → left, even at its last delivery',
    { kind: 'failure', error: new WorkerStoppedError('the worker stopped: its drain timed out') },
    { deliveryCount: 5, maxDeliveries: 5 },
    { write: null, action: 'leave' },
  ],
  [
    'FenceRejectedError → stop, no ack',
    { kind: 'failure', error: new FenceRejectedError('stale') },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'abandon' },
  ],
  [
    'transient at maxDeliveries → delivery_exhausted + dead letter',
    { kind: 'failure', error: new StoreUnavailableError('down') },
    { deliveryCount: 5, maxDeliveries: 5 },
    terminal('delivery_exhausted', 'dead_letter', 'delivery_exhausted'),
  ],
  [
    'transient past maxDeliveries → delivery_exhausted + dead letter',
    { kind: 'failure', error: new StoreUnavailableError('down') },
    { deliveryCount: 9, maxDeliveries: 5 },
    terminal('delivery_exhausted', 'dead_letter', 'delivery_exhausted'),
  ],
  [
    'worker died mid-node: crash loop at maxNodeAttempts',
    { kind: 'crash_loop', nodeId: 'boom' },
    { deliveryCount: 5, maxDeliveries: 5 },
    terminal('node_crash_loop'),
  ],
  [
    'malformed message → dead letter',
    { kind: 'malformed', reason: 'not JSON' },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'dead_letter', reason: 'malformed' },
  ],
  [
    'unknown execution → dead letter',
    { kind: 'unknown_execution' },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'dead_letter', reason: 'unknown_execution' },
  ],
  [
    'terminal execution → idempotent ack',
    { kind: 'already_terminal' },
    { deliveryCount: 3, maxDeliveries: 5 },
    ack,
  ],
  [
    'lease held by another worker → requeue then ack',
    { kind: 'lease_conflict' },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'requeue' },
  ],
  [
    'run on a suspended execution → no-op ack',
    { kind: 'no_op' },
    { deliveryCount: 1, maxDeliveries: 5 },
    ack,
  ],
  ['cancelled → ack', { kind: 'cancelled' }, { deliveryCount: 1, maxDeliveries: 5 }, ack],
  [
    'stored state undecodable → dead letter, nothing written',
    { kind: 'failure', error: new StateCorruptError('bad bytes') },
    { deliveryCount: 1, maxDeliveries: 5 },
    { write: null, action: 'dead_letter', reason: 'state_corrupt' },
  ],
  [
    'unexpected permanent failure → internal_error + dead letter',
    { kind: 'failure', error: new TypeError('bug') },
    { deliveryCount: 1, maxDeliveries: 5 },
    terminal('internal_error', 'dead_letter', 'permanent_failure'),
  ],
];

describe('decide: the worker decision table', () => {
  it.each(TABLE)('%s', (_row, result, context, expected) => {
    expect(decide(result, context)).toEqual(expected);
  });
});

describe('classifyFailure', () => {
  it('walks the cause chain to the first known code', () => {
    const wrapped = {
      code: 'flow_error',
      retryable: false,
      cause: { name: 'X', cause: new StateSerializationError('$NODE.a', 'function') },
    };
    expect(classifyFailure(wrapped)).toBe('serialization');
  });

  it('never classifies by class or message: a TypeError mentioning ECONNRESET is permanent', () => {
    expect(classifyFailure(new TypeError('socket ECONNRESET'))).toBe('permanent');
  });

  it('bounds the walk on cyclic causes', () => {
    const a: { code: string; cause?: unknown } = { code: 'x' };
    a.cause = a;
    expect(classifyFailure(a)).toBe('permanent');
  });

  it('falls back to the retryable flag anywhere on the chain', () => {
    expect(classifyFailure({ code: 'custom', cause: { retryable: true } })).toBe('transient');
  });
});
