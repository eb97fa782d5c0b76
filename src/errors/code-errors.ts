/**
 * What a code node's run fails with: its code failed, or it went over a limit the operator
 * set (CPU or wall-clock time, memory, output size, a backend not enabled). The engine keeps
 * their `code` as the FlowError's `type` (`nodeFailureType` in `flow-errors.ts`).
 */
import { PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

/**
 * A code node's code failed: it threw, did not compile, defined no `run`, or its backend
 * crashed. `retryable` is false when running it again cannot help (a syntax error, a
 * missing `run`, input a backend cannot take); a thrown error stays subject to the node's
 * errorHandler like any node failure.
 */
export class CodeError extends PlaitaError {
  override readonly name = 'CodeError';
  readonly code = 'code_error';
  readonly retryable: boolean;
  /** 1-based position in the code, when the backend reported one. */
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(
    message: string,
    options: PlaitaErrorOptions & { retryable?: boolean; line?: number; column?: number } = {},
  ) {
    super(message, options);
    this.retryable = options.retryable ?? true;
    this.line = options.line;
    this.column = options.column;
  }
}

/** A code run used up its CPU time (JavaScript) or its wall-clock time (Python). */
export class CodeTimeoutError extends PlaitaError {
  override readonly name = 'CodeTimeoutError';
  readonly code = 'code_timeout';
  readonly retryable = true;
}

/** A code run went over its memory limit (the sandbox heap, or the subprocess's RLIMIT_AS). */
export class CodeMemoryError extends PlaitaError {
  override readonly name = 'CodeMemoryError';
  readonly code = 'code_memory';
  readonly retryable = true;
}

/** A code node's result is larger than the operator allows (`codeOutputBytes`). */
export class CodeOutputTooLargeError extends PlaitaError {
  override readonly name = 'CodeOutputTooLargeError';
  readonly code = 'code_output_too_large';
  readonly retryable = false;
}

/** The code node needs a backend the operator has not enabled (`codeBackends`). */
export class CodeBackendDisabledError extends PlaitaError {
  override readonly name = 'CodeBackendDisabledError';
  readonly code = 'code_backend_disabled';
  readonly retryable = false;
}
