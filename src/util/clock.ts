/**
 * Time as the engine, the worker and the client see it: epoch milliseconds and one-shot timers.
 * Injected (`EngineOptions.clock`, the `clock` of FlowWorker and PlaitaClient) so that tests drive
 * node timeouts, retry waits, the flow budget, lease renewals and durable timers' due times with
 * a FakeClock instead of sleeping. Stores and queues take one too (the `clock` of their options):
 * give them the same one, so expiry, leases and delays follow it.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /**
   * Calls `callback` once, `ms` from now (a negative or NaN `ms` is 0). Returns the timer's
   * cancel, which does nothing once the timer has fired. With `unref`, a pending timer does not
   * keep the process alive: for deadlines and renewals, whose work keeps it alive itself.
   */
  setTimeout(callback: () => void, ms: number, options?: TimerOptions): CancelTimer;
}

export interface TimerOptions {
  unref?: boolean;
}

export type CancelTimer = () => void;

/** The process clock: `Date.now()` and Node's timers. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout(callback: () => void, ms: number, options?: TimerOptions): CancelTimer {
    if (ms > MAX_TIMER_MS) return longTimeout(callback, ms, options);
    const timer = setTimeout(callback, ms > 0 ? ms : 0);
    if (options?.unref) timer.unref();
    return () => clearTimeout(timer);
  },
});

/** The longest delay Node's setTimeout honours: past it (≈ 24.8 days) it fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A delay past MAX_TIMER_MS (a `P30D` timeout), in steps Node's timers can hold. */
function longTimeout(callback: () => void, ms: number, options?: TimerOptions): CancelTimer {
  let timer: NodeJS.Timeout;
  const arm = (remaining: number): void => {
    timer =
      remaining > MAX_TIMER_MS
        ? setTimeout(() => arm(remaining - MAX_TIMER_MS), MAX_TIMER_MS)
        : setTimeout(callback, remaining);
    if (options?.unref) timer.unref();
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** Resolves `ms` from now on `clock`. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}
