import { EXIT, type ExitCode } from './exit-codes.js';

/** A typed failure as the CLI ends on it: the exit code and the error that decided it. */
export interface FailureExit {
  exitCode: ExitCode;
  /** The typed error found along the `cause` chain (its message and record are printed). */
  error: TypedFailure;
}

/** What the CLI reads of a PlaitaError: its fields, not its class (plugins may bundle their own copy). */
export interface TypedFailure {
  code: string;
  name: string;
  retryable: boolean;
  message: string;
}

const MAX_CAUSE_DEPTH = 8;

/**
 * docs/public-surface.md exit codes by error code: bad input or configuration is 2, a service that cannot
 * be reached is 3, an execution that cannot proceed is 1.
 */
const EXIT_BY_CODE: Readonly<Record<string, ExitCode>> = {
  store_unavailable: EXIT.unavailable,
  store_misconfigured: EXIT.usage,
  input_too_deep: EXIT.usage,
  invalid_event: EXIT.usage,
  invalid_cursor: EXIT.usage,
  payload_too_large: EXIT.usage,
  unknown_execution: EXIT.usage,
  flow_definition_invalid: EXIT.usage,
  flow_definition_missing: EXIT.usage,
  flow_version_conflict: EXIT.usage,
  execution_terminal: EXIT.usage,
  invalid_transition: EXIT.usage,
  rerun_refused: EXIT.usage,
  state_not_serializable: EXIT.usage,
  state_too_large: EXIT.usage,
  state_corrupt: EXIT.failed,
  fence_rejected: EXIT.failed,
  lease_lost: EXIT.failed,
};

/**
 * Walks `error.cause` (bounded) for the first code in the table; else the first typed error
 * decides by `retryable` (false: the caller's input or configuration, 2; true: 1). Undefined
 * for an untyped error: a bug, reported as an internal error.
 */
export function failureExit(error: unknown): FailureExit | undefined {
  let first: TypedFailure | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isObject(current); depth++) {
    if (isTyped(current)) {
      if (Object.hasOwn(EXIT_BY_CODE, current.code))
        return { exitCode: EXIT_BY_CODE[current.code]!, error: current };
      first ??= current;
    }
    current = current.cause;
  }
  if (first === undefined) return undefined;
  return { exitCode: first.retryable ? EXIT.failed : EXIT.usage, error: first };
}

function isObject(value: unknown): value is { cause?: unknown } {
  return typeof value === 'object' && value !== null;
}

function isTyped(value: object): value is TypedFailure & { cause?: unknown } {
  const { code, retryable, message, name } = value as Partial<Record<string, unknown>>;
  return (
    typeof code === 'string' &&
    typeof retryable === 'boolean' &&
    typeof message === 'string' &&
    typeof name === 'string'
  );
}
