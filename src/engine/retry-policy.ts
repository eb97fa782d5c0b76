import type { HandlerDef } from '../flow/node-type.js';
import { FlowResultError } from '../errors/flow-errors.js';
import { isBudgetAbort } from './budget.js';

export interface RetryDecision {
  retry: boolean;
  /** Wait before the next attempt, ms. */
  delayMs: number;
}

const NO_RETRY: RetryDecision = Object.freeze({ retry: false, delayMs: 0 });

/**
 * Whether a node attempt that failed with `error` is tried again (docs/flow-format.md §7.4), and after
 * how long. Never retried: an `end`-style business error, a timeout or cancellation, and any
 * runtime error that says `retryable: false` (TerminalError, an exhausted expression budget).
 * A `retryAfterMs` on a retryable error replaces the handler's own delay.
 */
export function shouldRetry(
  error: unknown,
  handler: HandlerDef,
  failedAttempt: number,
): RetryDecision {
  if (failedAttempt > handler.retryTimes) return NO_RETRY;
  if (error instanceof FlowResultError || isBudgetAbort(error)) return NO_RETRY;
  const declared = declaredRetry(error);
  if (declared?.retryable === false) return NO_RETRY;
  const delayMs = declared?.retryAfterMs ?? policyDelay(handler, failedAttempt + 1);
  return { retry: true, delayMs };
}

/**
 * What a runtime error says of itself. Only errors with a string `code` speak for themselves
 * (PlaitaError and kin); a FlowError from a child flow carries a numeric code and is retried by
 * the policy, as the original does.
 */
function declaredRetry(error: unknown): { retryable: boolean; retryAfterMs?: number } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, retryable, retryAfterMs } = error as {
    code?: unknown;
    retryable?: unknown;
    retryAfterMs?: unknown;
  };
  if (typeof code !== 'string' || typeof retryable !== 'boolean') return null;
  return retryable && typeof retryAfterMs === 'number' && retryAfterMs >= 0
    ? { retryable, retryAfterMs }
    : { retryable };
}

/** The wait before attempt k (k ≥ 2) is `retryDelay × backoff^(k−2)`. */
function policyDelay(handler: HandlerDef, nextAttempt: number): number {
  if (handler.retryDelayMs === null) return 0;
  return handler.retryDelayMs * handler.retryBackoff ** (nextAttempt - 2);
}
