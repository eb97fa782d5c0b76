/**
 * Time budgets and cancellation, as a tree that mirrors the running work: an execution's
 * flow budget, each node's budget inside it, each child execution's inside its node.
 * Aborting a budget aborts everything beneath it, and the abort reason says which budget
 * ran out, so the node that owns it — and only that node — applies its timeoutHandler while
 * every level below lets the reason pass through untouched.
 *
 * The tree propagates aborts itself; an AbortSignal is created only when someone asks for
 * one (a node reading `ctx.signal`), because creating one per node costs more than the node.
 * Deadlines are epoch ms of the execution's Clock, which every budget in a tree shares.
 */
import { type CancelTimer, type Clock, systemClock } from '../util/clock.js';

/** Why a budget was aborted. Internal control flow: never shown to users as is. */
export class BudgetAbort extends Error {
  override readonly name = 'BudgetAbort';
  constructor(
    readonly kind: 'timeout' | 'cancel' | 'sibling',
    readonly budget: Budget,
  ) {
    super(
      kind === 'timeout'
        ? 'time budget exhausted'
        : kind === 'cancel'
          ? 'execution cancelled'
          : 'aborted after a sibling failed',
    );
  }
}

export function isBudgetAbort(error: unknown): error is BudgetAbort {
  return error instanceof BudgetAbort;
}

type AbortListener = (reason: BudgetAbort) => void;

export class Budget {
  /** Absolute epoch ms, or null for no limit of its own. */
  readonly deadline: number | null;
  /** The root's clock (EngineOptions.clock); a child budget uses its parent's. */
  readonly clock: Clock;
  #reason: BudgetAbort | undefined;
  #controller: AbortController | undefined;
  #cancelTimer: CancelTimer | undefined;
  readonly #listeners = new Set<AbortListener>();
  readonly #detach: Array<() => void> = [];

  constructor(
    readonly parent: Budget | null,
    deadline: number | null,
    readonly label: 'flow' | 'node',
    extraSignals: readonly AbortSignal[] = [],
    clock: Clock = parent?.clock ?? systemClock,
  ) {
    this.deadline = deadline;
    this.clock = clock;
    if (parent) {
      if (parent.#reason) this.#reason = parent.#reason;
      else this.#detach.push(parent.onAbort((reason) => this.#abort(reason)));
    }
    for (const signal of extraSignals) this.#link(signal, 'sibling');
    if (deadline !== null && !this.#reason) {
      // Timers cover work that awaits (fetch, sleeps); check() covers loops that never yield.
      this.#cancelTimer = clock.setTimeout(() => this.expire(), deadline - clock.now(), {
        unref: true,
      });
    }
  }

  get aborted(): boolean {
    return this.#reason !== undefined;
  }

  get reason(): BudgetAbort | undefined {
    return this.#reason;
  }

  /** Throws the abort reason when aborted; a no-op otherwise. */
  throwIfAborted(): void {
    if (this.#reason) throw this.#reason;
  }

  /** An AbortSignal for code outside the engine (fetch, plugins); made on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Calls `listener` once when this budget is aborted; returns the way to stop listening. */
  onAbort(listener: AbortListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  effectiveDeadline(): number | null {
    let min = this.deadline;
    for (let b = this.parent; b; b = b.parent) {
      if (b.deadline !== null && (min === null || b.deadline < min)) min = b.deadline;
    }
    return min;
  }

  expire(): void {
    this.#abort(new BudgetAbort('timeout', this));
  }

  cancel(): void {
    this.#abort(new BudgetAbort('cancel', this));
  }

  /**
   * Expires the OUTERMOST budget whose deadline has passed (so the owner that set the
   * binding limit handles it), then throws the abort reason if this budget is aborted.
   */
  check(now = this.clock.now()): void {
    let outermostExpired: Budget | null =
      this.deadline !== null && now >= this.deadline ? this : null;
    for (let b = this.parent; b; b = b.parent) {
      if (b.deadline !== null && now >= b.deadline) outermostExpired = b;
    }
    outermostExpired?.expire();
    if (this.#reason) throw this.#reason;
  }

  /** External cancellation (the caller's AbortSignal): detached again by dispose(). */
  cancelOn(signal: AbortSignal): void {
    this.#link(signal, 'cancel');
  }

  /** Stops the timer and detaches from its sources; call when the work it covers is over. */
  dispose(): void {
    this.#cancelTimer?.();
    for (const detach of this.#detach) detach();
    this.#detach.length = 0;
  }

  #abort(reason: BudgetAbort): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#cancelTimer?.();
    this.#controller?.abort(reason);
    for (const listener of [...this.#listeners]) listener(reason);
    this.#listeners.clear();
  }

  #link(signal: AbortSignal, kind: 'cancel' | 'sibling'): void {
    if (signal.aborted) {
      this.#abort(new BudgetAbort(kind, this));
      return;
    }
    const onAbort = (): void => this.#abort(new BudgetAbort(kind, this));
    signal.addEventListener('abort', onAbort, { once: true });
    this.#detach.push(() => signal.removeEventListener('abort', onAbort));
  }
}

/** Resolves `ms` later on the budget's clock, or rejects with its abort reason as soon as it is aborted. */
export function sleep(ms: number, budget: Budget): Promise<void> {
  return new Promise((resolve, reject) => {
    if (budget.reason) {
      reject(budget.reason);
      return;
    }
    const stop = budget.onAbort((reason) => {
      cancel();
      reject(reason);
    });
    const cancel = budget.clock.setTimeout(() => {
      stop();
      resolve();
    }, ms);
  });
}

/** Settles with `work`, or rejects with the abort reason as soon as the budget is aborted (late results are dropped). */
export function raceAbort<T>(work: PromiseLike<T>, budget: Budget): Promise<T> {
  if (budget.reason) return Promise.reject(budget.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = budget.onAbort(reject);
    work.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passed through as the node rejected
        reject(error);
      },
    );
  });
}
