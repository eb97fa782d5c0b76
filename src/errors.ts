/**
 * Runtime errors: what the durable layers (codec, stores, queue, worker, client) raise.
 * Every class carries a stable snake_case `code` and a `retryable` flag; callers classify
 * by those two fields (see `worker/decide.ts`), never by message text or `instanceof`
 * a platform error class. Flow-level failures (a node failing, an `end` error) are
 * `FlowError`s instead: see `flow-errors.ts`.
 */

export interface PlaitaErrorOptions {
  cause?: unknown;
  executionId?: string | undefined;
  nodeId?: string | undefined;
}

export abstract class PlaitaError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  readonly executionId: string | undefined;
  readonly nodeId: string | undefined;

  constructor(message: string, options: PlaitaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.executionId = options.executionId;
    this.nodeId = options.nodeId;
  }

  /** The plain record persisted in an execution's `error` field. */
  toRecord(): ErrorRecord {
    return {
      code: this.code,
      name: this.name,
      message: this.message,
      retryable: this.retryable,
      ...(this.nodeId === undefined ? {} : { node: this.nodeId }),
    };
  }
}

/** How an error is persisted: switch on `code` after loading, never on a class. */
export interface ErrorRecord {
  code: string | number | null;
  name: string;
  message: string;
  retryable: boolean;
  node?: string | null;
  details?: Record<string, unknown>;
}

/** A value in the state cannot be encoded losslessly (function, symbol, cycle, class instance...). */
export class StateSerializationError extends PlaitaError {
  override readonly name = 'StateSerializationError';
  readonly code = 'state_not_serializable';
  readonly retryable = false;
  /** Where the offending value sits, e.g. `$NODE.fetch.result.client`. */
  readonly path: string;
  /** What the offending value is, e.g. `function`, `cycle`, `class Socket`. */
  readonly valueType: string;

  constructor(path: string, valueType: string, options: PlaitaErrorOptions = {}) {
    super(`cannot store the value at ${path}: ${valueType} is not serializable`, options);
    this.path = path;
    this.valueType = valueType;
  }

  override toRecord(): ErrorRecord {
    return { ...super.toRecord(), details: { path: this.path, valueType: this.valueType } };
  }
}

export interface LargestEntry {
  path: string;
  bytes: number;
}

/** The encoded state exceeds `maxStateBytes`. */
export class StateTooLargeError extends PlaitaError {
  override readonly name = 'StateTooLargeError';
  readonly code = 'state_too_large';
  readonly retryable = false;
  readonly bytes: number;
  readonly limitBytes: number;
  readonly largest: readonly LargestEntry[];

  constructor(
    bytes: number,
    limitBytes: number,
    largest: readonly LargestEntry[],
    options: PlaitaErrorOptions = {},
  ) {
    const named = largest.map((e) => `${e.path} (${e.bytes} bytes)`).join(', ');
    super(
      `the encoded state is ${bytes} bytes, over the limit of ${limitBytes}` +
        (named ? `; largest entries: ${named}` : ''),
      options,
    );
    this.bytes = bytes;
    this.limitBytes = limitBytes;
    this.largest = largest;
  }

  override toRecord(): ErrorRecord {
    return {
      ...super.toRecord(),
      details: { bytes: this.bytes, limitBytes: this.limitBytes, largest: [...this.largest] },
    };
  }
}

/** Stored bytes are not a valid encoding: retrying the read will not help. */
export class StateCorruptError extends PlaitaError {
  override readonly name = 'StateCorruptError';
  readonly code = 'state_corrupt';
  readonly retryable = false;
}

/** The store could not be reached or answered with a transient failure; the caller may retry. */
export class StoreUnavailableError extends PlaitaError {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
  readonly retryable = true;
}

/** A fenced write carried a stale lease generation: another worker now owns the execution. */
export class FenceRejectedError extends PlaitaError {
  override readonly name = 'FenceRejectedError';
  readonly code = 'fence_rejected';
  readonly retryable = false;
}

export interface DefinitionIssue {
  /** Where in the document, e.g. `nodes[3].errorHandler.strategy`. */
  path: string;
  message: string;
  /**
   * A stable snake_case reason when the loader has a more precise one than "does not load"
   * (e.g. `code_backend_disabled`); static analysis reports it as the issue's code.
   */
  code?: string;
}

/** A flow document that cannot be loaded; `issues` lists every problem with its path. */
export class FlowDefinitionError extends PlaitaError {
  override readonly name = 'FlowDefinitionError';
  readonly code = 'flow_definition_invalid';
  readonly retryable = false;
  readonly issues: readonly DefinitionIssue[];

  constructor(issues: readonly DefinitionIssue[], options: PlaitaErrorOptions = {}) {
    super(
      issues.length === 1
        ? `invalid flow: ${formatIssue(issues[0]!)}`
        : `invalid flow (${issues.length} problems):\n` +
            issues.map((i) => '  ' + formatIssue(i)).join('\n'),
      options,
    );
    this.issues = issues;
  }
}

function formatIssue(issue: DefinitionIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** For node authors: a failure that must never be retried by the runtime. */
export class TerminalError extends PlaitaError {
  override readonly name = 'TerminalError';
  readonly code: string;
  readonly retryable = false;

  constructor(message: string, options: PlaitaErrorOptions & { code?: string } = {}) {
    super(message, options);
    this.code = options.code ?? 'terminal';
  }
}

/** For node authors: a transient failure; the runtime may retry after `retryAfterMs`. */
export class RetryableError extends PlaitaError {
  override readonly name = 'RetryableError';
  readonly code: string;
  readonly retryable = true;
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: PlaitaErrorOptions & { code?: string; retryAfterMs?: number } = {},
  ) {
    super(message, options);
    this.code = options.code ?? 'retryable';
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Reads the classification fields of any thrown value without trusting its class. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** A different definition is already published under this flowId + version. */
export class FlowVersionConflictError extends PlaitaError {
  override readonly name = 'FlowVersionConflictError';
  readonly code = 'flow_version_conflict';
  readonly retryable = false;
}

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

/** The definition an execution pinned (by hash) is not in the flow store. */
export class FlowDefinitionMissingError extends PlaitaError {
  override readonly name = 'FlowDefinitionMissingError';
  readonly code = 'flow_definition_missing';
  readonly retryable = false;
}

/**
 * The definition an execution pinned is stored, but this worker cannot load it: its registry
 * lacks a node type the flow uses (a plugin not loaded here, a worker older than the one that
 * stored it). Another worker, or this one redeployed, can: retryable, so the message is
 * redelivered within the delivery budget and then dead-lettered for replay, never ended as if
 * the flow itself had failed.
 */
export class FlowNotLoadableError extends PlaitaError {
  override readonly name = 'FlowNotLoadableError';
  readonly code = 'flow_not_loadable';
  readonly retryable = true;
}

/** A create-only save found the execution already stored (SaveOptions.createOnly): nothing written. */
export class ExecutionExistsError extends PlaitaError {
  override readonly name = 'ExecutionExistsError';
  readonly code = 'execution_exists';
  readonly retryable = false;
}

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

/**
 * The store's configuration is wrong: a database or role that does not exist, credentials the
 * server refuses, a path that is not a database file. Retrying the same configuration fails
 * the same way, so unlike `StoreUnavailableError` it is not retryable; fix the URL or path.
 */
export class StoreConfigurationError extends PlaitaError {
  override readonly name = 'StoreConfigurationError';
  readonly code = 'store_misconfigured';
  readonly retryable = false;
}

/**
 * An optional peer dependency is not installed: `plaita` loads a database driver (`better-sqlite3`,
 * `pg`, `ioredis`) or `prom-client` only when something that needs it is built, so an install
 * without it runs everything else. `dependency` names the package to install; retrying without
 * installing it fails the same way.
 */
export class PeerDependencyMissingError extends PlaitaError {
  override readonly name = 'PeerDependencyMissingError';
  readonly code = 'peer_dependency_missing';
  readonly retryable = false;
  readonly dependency: string;

  constructor(dependency: string, message: string, options: PlaitaErrorOptions = {}) {
    super(message, options);
    this.dependency = dependency;
  }
}

/**
 * Redis refused a command for a reason that retrying will not fix: a script error, a key of
 * the wrong type (`WRONGTYPE`), a reply our scripts never produce. `cause` is the driver error;
 * `redisCode` is the reply's first word (e.g. `WRONGTYPE`, `ERR`) when there is one.
 */
export class RedisCommandError extends PlaitaError {
  override readonly name = 'RedisCommandError';
  readonly code = 'store_command_failed';
  readonly retryable = false;
  readonly redisCode: string | undefined;

  constructor(
    message: string,
    options: PlaitaErrorOptions & { redisCode?: string | undefined } = {},
  ) {
    super(message, options);
    this.redisCode = options.redisCode;
  }
}

/** The store was closed (or its borrowed client was ended by its owner): using it is a bug. */
export class StoreClosedError extends PlaitaError {
  override readonly name = 'StoreClosedError';
  readonly code = 'store_closed';
  readonly retryable = false;
}

/** A list was given a cursor it never handed out (a caller's mistake, never the store's state). */
export class InvalidCursorError extends PlaitaError {
  override readonly name = 'InvalidCursorError';
  readonly code = 'invalid_cursor';
  readonly retryable = false;
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
 * The plain record persisted for any thrown value: a PlaitaError's own record (with its
 * details); anything else summarised by its name, message and whatever code it carries.
 */
export function toErrorRecord(error: unknown): ErrorRecord {
  if (error instanceof PlaitaError) return error.toRecord();
  if (error instanceof Error) {
    const { code, retryable } = error as { code?: unknown; retryable?: unknown };
    return {
      code: typeof code === 'string' || typeof code === 'number' ? code : 'internal_error',
      name: error.name,
      message: error.message,
      retryable: retryable === true,
    };
  }
  return { code: 'internal_error', name: typeof error, message: String(error), retryable: false };
}

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
