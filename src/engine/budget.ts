/**
 * Time budgets and cancellation, as a tree that mirrors the running work: an execution's
 * flow budget, each node's budget inside it, each child execution's inside its node.
 * Aborting a budget aborts everything beneath it (signals are linked), and the abort reason
 * says which budget ran out, so the node that owns it — and only that node — applies its
 * timeoutHandler while every level below lets the reason pass through untouched.
 */

/** Why a budget's signal fired. Internal control flow: never shown to users as is. */
export class BudgetAbort extends Error {
  override readonly name = 'BudgetAbort';
  constructor(
    readonly kind: 'timeout' | 'cancel' | 'sibling',
    readonly budget: Budget,
  ) {
    super(kind === 'timeout' ? 'time budget exhausted' : kind === 'cancel' ? 'execution cancelled' : 'aborted after a sibling failed');
  }
}

export function isBudgetAbort(error: unknown): error is BudgetAbort {
  return error instanceof BudgetAbort;
}

export class Budget {
  readonly controller = new AbortController();
  /** Absolute epoch ms, or null for no limit of its own. */
  readonly deadline: number | null;
  #timer: NodeJS.Timeout | undefined;
  readonly #unlink: Array<() => void> = [];

  constructor(
    readonly parent: Budget | null,
    deadline: number | null,
    readonly label: 'flow' | 'node',
    extraSignals: readonly AbortSignal[] = [],
  ) {
    this.deadline = deadline;
    if (parent) this.#link(parent.signal, () => parent.signal.reason as unknown);
    for (const signal of extraSignals) this.#link(signal, () => new BudgetAbort('sibling', this));
    if (deadline !== null && !this.signal.aborted) {
      const delay = Math.max(0, deadline - Date.now());
      // Timers cover work that awaits (fetch, sleeps); check() covers loops that never yield.
      this.#timer = setTimeout(() => this.expire(), delay);
      this.#timer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left of the tightest deadline on the chain, or null for none. */
  remainingMs(now = Date.now()): number | null {
    const deadline = this.effectiveDeadline();
    return deadline === null ? null : deadline - now;
  }

  effectiveDeadline(): number | null {
    let min: number | null = null;
    for (let b: Budget | null = this; b; b = b.parent) {
      if (b.deadline !== null && (min === null || b.deadline < min)) min = b.deadline;
    }
    return min;
  }

  expire(): void {
    if (!this.signal.aborted) this.controller.abort(new BudgetAbort('timeout', this));
  }

  cancel(): void {
    if (!this.signal.aborted) this.controller.abort(new BudgetAbort('cancel', this));
  }

  /**
   * Expires the OUTERMOST budget whose deadline has passed (so the owner that set the
   * binding limit handles it), then throws the abort reason if this budget is aborted.
   */
  check(now = Date.now()): void {
    let outermostExpired: Budget | null = null;
    for (let b: Budget | null = this; b; b = b.parent) {
      if (b.deadline !== null && now >= b.deadline) outermostExpired = b;
    }
    outermostExpired?.expire();
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** External cancellation (the caller's AbortSignal): detached again by dispose(). */
  cancelOn(signal: AbortSignal): void {
    this.#link(signal, () => new BudgetAbort('cancel', this));
  }

  /** Stops the timer and detaches from the parent; call when the work it covers is over. */
  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    for (const unlink of this.#unlink) unlink();
    this.#unlink.length = 0;
  }

  #link(signal: AbortSignal, reason: () => unknown): void {
    if (signal.aborted) {
      this.controller.abort(reason());
      return;
    }
    const onAbort = (): void => this.controller.abort(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    this.#unlink.push(() => signal.removeEventListener('abort', onAbort));
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Settles with `work`, or rejects with the signal's reason as soon as it fires (late results are dropped). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
