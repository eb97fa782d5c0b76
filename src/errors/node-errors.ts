/**
 * What nodes throw. Node authors get two classes: `TerminalError` (never retried) and
 * `RetryableError` (the runtime may retry). The built-in node types' own failures follow;
 * the engine wraps each into a `NodeError`, keeping it as the cause, and those with a `code`
 * keep it visible to an operator.
 */
import { PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

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

/** A node definition that cannot be registered: no `type`, or no `run` function. */
export class NodeRegistryError extends Error {
  override readonly name = 'NodeRegistryError';
}

/** An assignment node's result does not match its declared `outputType`. */
export class OutputTypeMismatchError extends Error {
  override readonly name = 'OutputTypeMismatchError';
}

/** A collection node's `collection` is not an array, a string or an object. */
export class CollectionTypeError extends Error {
  override readonly name = 'CollectionTypeError';
}

/** A reduce over an empty collection without `initial`. */
export class EmptyReduceError extends Error {
  override readonly name = 'EmptyReduceError';
}

/** A while loop reached the operator's ceiling before its own `maxIterations`. */
export class IterationLimitError extends Error {
  override readonly name = 'IterationLimitError';
  readonly code = 'iteration_limit';
  readonly retryable = false;

  constructor(ceiling: number, requested: number) {
    super(
      `while loop reached the operator's ceiling of ${ceiling} iterations (the flow asks for up to ${requested})`,
    );
  }
}

/** A child flow's input that does not match its declared `inputType`. */
export class ChildInputTypeError extends Error {
  override readonly name = 'ChildInputTypeError';
}

/** A reference node's flow that the host's resolver does not find (or there is no resolver). */
export class FlowNotResolvedError extends Error {
  override readonly name = 'FlowNotResolvedError';
}

/** A request refused by the node's host policy (docs/flow-format.md §3.16); the node reports it as 1002. */
export class HostPolicyError extends Error {
  override readonly name = 'HostPolicyError';
}

/** A URL's host that has no address: no host at all, or one the resolver cannot find. */
export class HostResolutionError extends Error {
  override readonly name = 'HostResolutionError';
}

/** An approval node's approver that no one could decide as, found when the node runs. */
export class ApproverNameError extends Error {
  override readonly name = 'ApproverNameError';
  readonly code = 'approver_invalid';
  readonly retryable = false;

  constructor(
    readonly nodeId: string,
    index: number,
    problem: string,
  ) {
    super(`approval node "${nodeId}": its resolved approvers[${index}] ${problem}`);
  }
}
