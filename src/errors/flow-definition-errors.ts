/**
 * Why a flow definition cannot be used: the document does not load (with every problem and
 * its path), its version is taken, or the definition an execution pinned is missing or cannot
 * be loaded by this worker. The parsers' own refusals (a type schema, a duration) are caught
 * by the loader and become issues of a `FlowDefinitionError`.
 */
import { PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

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

/** A different definition is already published under this flowId + version. */
export class FlowVersionConflictError extends PlaitaError {
  override readonly name = 'FlowVersionConflictError';
  readonly code = 'flow_version_conflict';
  readonly retryable = false;
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

/** A type schema (`inputType`, `outputType`) that does not parse; `path` is relative to it. */
export class TypeSchemaError extends Error {
  override readonly name = 'TypeSchemaError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** A duration that is neither milliseconds nor ISO 8601 (`util/duration.ts`). */
export class DurationFormatError extends Error {
  override readonly name = 'DurationFormatError';
}
