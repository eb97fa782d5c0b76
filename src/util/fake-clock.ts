import type { CancelTimer, Clock } from './clock.js';

/** 2024-01-01T00:00:00.000Z: where a FakeClock starts unless told otherwise. */
const DEFAULT_START_MS = Date.UTC(2024, 0, 1);

interface FakeTimer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A Clock for tests: time stands still until `advance` moves it, firing the timers that fall
 * due on the way in order (by due time, then by the order they were set), each at its own
 * instant. Before the first timer and after each one it lets pending promise callbacks run, so
 * work a timer resumes can set the next timer before time moves on.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Set<FakeTimer>();

  constructor(startMs: number = DEFAULT_START_MS) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): CancelTimer {
    const timer: FakeTimer = { at: this.#now + (ms > 0 ? ms : 0), seq: this.#seq++, callback };
    this.#timers.add(timer);
    return () => {
      this.#timers.delete(timer);
    };
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer due by then. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.#now + Math.max(0, ms));
  }

  /** Moves time forward to `epochMs` (never back), firing every timer due by then. */
  async advanceTo(epochMs: number): Promise<void> {
    await settle();
    for (let timer = this.#next(epochMs); timer; timer = this.#next(epochMs)) {
      this.#timers.delete(timer);
      this.#now = Math.max(this.#now, timer.at);
      timer.callback();
      await settle();
    }
    this.#now = Math.max(this.#now, epochMs);
  }

  /** Moves time to the next pending timer and fires it; false when none is pending. */
  async runNext(): Promise<boolean> {
    await settle();
    const timer = this.#next(Infinity);
    if (!timer) return false;
    await this.advanceTo(timer.at);
    return true;
  }

  /** The earliest timer due by `limit`, ties in the order they were set. */
  #next(limit: number): FakeTimer | undefined {
    let first: FakeTimer | undefined;
    for (const timer of this.#timers) {
      if (timer.at > limit) continue;
      if (!first || timer.at < first.at || (timer.at === first.at && timer.seq < first.seq))
        first = timer;
    }
    return first;
  }
}

/** One turn of the event loop: every promise callback queued before it has run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
