import { errorCode, PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

/**
 * What the control plane (schedules, starts, flow versions, approvals) refuses, as typed errors that know
 * nothing of HTTP: `server/to-problem.ts` is the one place that turns them into problems. The
 * codes are the problem codes they become.
 */

/** Where in a request a refusal points (`body.cron`, `body.flowId`) and what is wrong there. */
export interface FieldIssue {
  path: string;
  message: string;
}

interface RefusalOptions extends PlaitaErrorOptions {
  fieldIssues?: readonly FieldIssue[];
}

/** A refusal that may point into the request: the fields at fault and what is wrong there. */
abstract class FieldRefusal extends PlaitaError {
  readonly retryable: boolean = false;
  readonly fieldIssues: readonly FieldIssue[] | undefined;

  constructor(message: string, options: RefusalOptions = {}) {
    super(message, options);
    this.fieldIssues = options.fieldIssues;
  }
}

/** The request cannot be carried out as given (a cron that never fires, flowId and flow both). */
export class InvalidRequestError extends FieldRefusal {
  override readonly name = 'InvalidRequestError';
  readonly code = 'invalid_request';
}

/** What the request names does not exist (a flow version, a published flow, an approval node). */
export class NotFoundError extends FieldRefusal {
  override readonly name = 'NotFoundError';
  readonly code = 'not_found';
}

/** The caller may not do this, whoever they are (an approver not on the approval's list). */
export class ForbiddenError extends FieldRefusal {
  override readonly name = 'ForbiddenError';
  readonly code = 'forbidden';
}

/**
 * The request conflicts with what is stored (a published version, another request with the same
 * idempotency key, an approval already decided). With `retryAfterSeconds` it will settle by
 * itself: retryable.
 */
export class ConflictError extends FieldRefusal {
  override readonly name = 'ConflictError';
  readonly code = 'conflict';
  override readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options: RefusalOptions & { retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.retryable = options.retryAfterSeconds !== undefined;
  }
}

const MAX_CAUSE_DEPTH = 8;

/** A store or queue that cannot be reached, anywhere along the cause chain. */
export function isUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current; depth++) {
    const code = errorCode(current);
    if (code === 'store_unavailable' || code === 'store_misconfigured' || code === 'store_closed')
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Should a background loop (the scheduler, bulk operations) try again later? By the error's own
 * `retryable` flag, or an unreachable store along its causes; never by its message.
 */
export function isRetryable(error: unknown): boolean {
  if (isUnavailable(error)) return true;
  return error instanceof PlaitaError ? error.retryable : false;
}

/**
 * What a refused item says to the operator (a bulk operation's failures): the message of one of
 * our typed errors; for anything else only that it was unexpected, as the API answers it (a
 * driver's words, a host or a stack, are for the log).
 */
export function refusalReason(error: unknown): string {
  return error instanceof PlaitaError ? error.message : 'an unexpected error happened';
}
