import type { Logger } from './logger.js';

/** Between repeats of one failure, at most one line this often. */
const REPEAT_EVERY_MS = 60_000;

/**
 * The failures of one background loop (the scheduler, the heartbeat, the reaper, the queue
 * reader) logged without flooding: the first of a run at warn, then one line a minute while it
 * goes on, then one when the loop works again. A retryable failure (a store or Redis that is
 * down) is logged by its code and message only: its stack says nothing new, and a loop retried
 * every half second once wrote a stack twice a second for as long as the outage lasted.
 */
export class FailureLog {
  #failures = 0;
  #since = 0;
  #loggedAt = 0;

  constructor(
    private readonly log: Logger,
    private readonly what: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Failures in a row since the loop last worked. */
  get failures(): number {
    return this.#failures;
  }

  failed(error: unknown): void {
    const now = this.now();
    this.#failures++;
    if (this.#failures === 1) this.#since = now;
    else if (now - this.#loggedAt < REPEAT_EVERY_MS) return;
    this.#loggedAt = now;
    const fields = {
      ...describe(error),
      failures: this.#failures,
      failingForMs: now - this.#since,
    };
    const first = this.#failures === 1;
    this.log.warn(fields, `${this.what} ${first ? 'failed' : 'still failing'}; retrying`);
  }

  succeeded(): void {
    if (this.#failures === 0) return;
    const fields = { failures: this.#failures, failingForMs: this.now() - this.#since };
    this.#failures = 0;
    this.log.warn(fields, `${this.what} works again`);
  }
}

/**
 * How long a loop waits before its next try: `baseMs` while it works, doubling with each
 * failure in a row up to `maxMs`, so a long outage is not hammered.
 */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  if (failures === 0) return baseMs;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures, 16));
}

function describe(error: unknown): Record<string, unknown> {
  const { code, retryable, message } = (error ?? {}) as {
    code?: unknown;
    retryable?: unknown;
    message?: unknown;
  };
  if (retryable !== true) return { err: error };
  return { errorCode: code, error: typeof message === 'string' ? message : String(error) };
}
