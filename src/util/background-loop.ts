import { type CancelTimer, type Clock, systemClock } from './clock.js';
import { backoffMs, FailureLog } from './failure-log.js';
import type { Logger } from './logger.js';

export interface BackgroundLoopOptions {
  /** How the log names the loop (`the scheduler failed; retrying`). */
  name: string;
  log: Logger;
  /** Between ticks (ms): see `pace`. */
  intervalMs: number;
  /** Before the first tick (ms), or `now`: begun inside `start()`. Default `intervalMs`. */
  firstTickMs?: number | 'now';
  /**
   * `after-tick` (default): the next tick is due `intervalMs` after one ends, so a slow tick
   * pushes the next back. `fixed-rate`: a tick is due every `intervalMs` from the first; one
   * that falls due while the last still runs is skipped. Never two ticks at once either way.
   */
  pace?: 'after-tick' | 'fixed-rate';
  /**
   * After failed ticks in a row, wait longer before the next, doubling up to this (ms; with
   * `after-tick` only). Default: no backoff.
   */
  maxBackoffMs?: number;
  /** What paces the ticks and times the failure log (default the system clock). */
  clock?: Clock;
}

/**
 * A tick run again and again until stopped: the scheduler, bulk operations, the reaper, a
 * worker's heartbeat. A failed tick is logged (FailureLog: no flood while an outage lasts) and
 * the loop goes on; it never throws. `stop()` cancels the next tick and waits for the one in
 * flight, so nothing it writes lands after. Its timers are unref'd: what the process serves
 * (the HTTP listener, the worker's queue reads) keeps it alive, never a loop's next tick.
 */
export class BackgroundLoop {
  readonly #failures: FailureLog;
  #cancelTimer: CancelTimer | undefined;
  #running: Promise<void> | null = null;
  #started = false;
  #stopped = false;

  constructor(
    private readonly tick: () => Promise<unknown>,
    private readonly options: BackgroundLoopOptions,
  ) {
    this.#failures = new FailureLog(options.log, options.name, () => this.#clock.now());
  }

  get #clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  /** Starts ticking (once: a second call, or one after `stop()`, does nothing). */
  start(): this {
    if (this.#started) return this;
    this.#started = true;
    const first = this.options.firstTickMs ?? this.options.intervalMs;
    if (first === 'now') this.#beat();
    else this.#arm(first);
    return this;
  }

  /** No tick starts after this; resolves once the tick in flight (if any) has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer?.();
    await this.#running;
  }

  #arm(ms: number): void {
    if (this.#stopped) return;
    this.#cancelTimer = this.#clock.setTimeout(() => this.#beat(), ms, { unref: true });
  }

  #beat(): void {
    if (this.#stopped) return;
    const fixedRate = this.options.pace === 'fixed-rate';
    if (fixedRate) this.#arm(this.options.intervalMs);
    if (this.#running) return;
    this.#running = this.#runTick().finally(() => {
      this.#running = null;
      if (!fixedRate) this.#arm(this.#delayAfterTick());
    });
  }

  async #runTick(): Promise<void> {
    try {
      await this.tick();
      this.#failures.succeeded();
    } catch (error) {
      this.#failures.failed(error);
    }
  }

  #delayAfterTick(): number {
    const { intervalMs, maxBackoffMs } = this.options;
    if (maxBackoffMs === undefined) return intervalMs;
    return backoffMs(this.#failures.failures, intervalMs, maxBackoffMs);
  }
}
