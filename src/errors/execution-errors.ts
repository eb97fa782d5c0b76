/**
 * What an action on one execution is refused or gives up with (the client's and operator's
 * start, send, cancel, retry and wait): no such execution, one already terminal, a transition
 * its status does not allow, an input refused before anything is stored.
 */
import { PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

/** No execution with this id (for this tenant). */
export class UnknownExecutionError extends PlaitaError {
  override readonly name = 'UnknownExecutionError';
  readonly code = 'unknown_execution';
  readonly retryable = false;
}

/** The execution is terminal: it accepts no more events or cancels. */
export class ExecutionTerminalError extends PlaitaError {
  override readonly name = 'ExecutionTerminalError';
  readonly code = 'execution_terminal';
  readonly retryable = false;
}

/** An operator action that the execution's status does not allow (e.g. retry of a completed execution). */
export class InvalidTransitionError extends PlaitaError {
  override readonly name = 'InvalidTransitionError';
  readonly code = 'invalid_transition';
  readonly retryable = false;
}

/**
 * An input, event payload or document refused before anything is stored: nested deeper than
 * the limit (`input_too_deep`), larger than it (`payload_too_large`), or an event no worker
 * could take (`invalid_event`: an empty type or event id). `path` says where.
 */
export class InputRejectedError extends PlaitaError {
  override readonly name = 'InputRejectedError';
  readonly code: 'input_too_deep' | 'payload_too_large' | 'invalid_event';
  readonly retryable = false;
  readonly path: string;

  constructor(
    code: 'input_too_deep' | 'payload_too_large' | 'invalid_event',
    path: string,
    message: string,
    options: PlaitaErrorOptions = {},
  ) {
    super(message, options);
    this.code = code;
    this.path = path;
  }
}

/** `waitFor` gave up before the execution settled; the execution itself goes on. */
export class WaitTimeoutError extends PlaitaError {
  override readonly name = 'WaitTimeoutError';
  readonly code = 'wait_timeout';
  readonly retryable = true;
}

/** The abort reason a running node sees when an operator cancelled its execution. */
export class CancelRequestedError extends PlaitaError {
  override readonly name = 'CancelRequestedError';
  readonly code = 'cancel_requested';
  readonly retryable = false;
}

/**
 * A rerun the original execution cannot give (engine/rerun-context.ts): its `fromNode` never
 * ran, sits inside a child flow or off the path the saved results lead along, or a result is
 * given for a node that is not kept. `path` names the request's field at fault (`fromNode`,
 * `results.<nodeId>`).
 */
export class RerunRefusedError extends PlaitaError {
  override readonly name = 'RerunRefusedError';
  readonly code = 'rerun_refused';
  readonly retryable = false;
  readonly path: string;

  constructor(path: string, message: string, options: PlaitaErrorOptions = {}) {
    super(message, options);
    this.path = path;
  }
}
