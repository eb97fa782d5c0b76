/**
 * Why a worker lets go of the execution in hand without failing it: its lease is lost, or it
 * is stopping. Both leave the message to be redelivered.
 */
import { PlaitaError } from './plaita-error.js';

/** The worker lost an execution's lease (or its message) while working on it: stop, let it be redelivered. */
export class LeaseLostError extends PlaitaError {
  override readonly name = 'LeaseLostError';
  readonly code = 'lease_lost';
  readonly retryable = true;
}

/**
 * The worker gave up the work in hand: its drain timed out while stopping. Neither the
 * execution's failure nor the store's: the message is left for another worker, whatever its
 * delivery count (a write here would be under a lease that is still valid).
 */
export class WorkerStoppedError extends PlaitaError {
  override readonly name = 'WorkerStoppedError';
  readonly code = 'worker_stopped';
  readonly retryable = true;
}
