import { CancelRequestedError } from '../errors/execution-errors.js';
import { LeaseLostError, WorkerStoppedError } from '../errors/worker-errors.js';
import type { Delivery, TaskQueue } from '../queue/task-queue.js';
import type { ExecutionStore, Lease } from '../store/execution-store.js';
import { BackgroundLoop } from '../util/background-loop.js';
import { type Clock, systemClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

const CANCEL_POLL_MS = 1_000;

/** What one handling holds, as the keeper sees it: three questions, each answered by a store or queue. */
export interface HeldWork {
  readonly executionId: string;
  readonly messageId: string;
  /** Extends the lease by its TTL; false when it is no longer ours. */
  renewLease(): Promise<boolean>;
  /** Extends the message's invisibility; false when another consumer reclaimed it. */
  renewMessage(): Promise<boolean>;
  isCancelRequested(): Promise<boolean>;
}

export interface LeaseKeeperOptions {
  leaseTtlMs: number;
  visibilityTimeoutMs: number;
  log: Logger;
  /** Drives the renewal ticks (default the system clock). */
  clock?: Clock;
}

/**
 * Keeps what a worker holds while it works: the execution's lease (renewed every third of
 * its TTL) and the message's invisibility (renewed every third of the visibility timeout).
 * Losing either aborts the work (`signal`) — the node's AbortSignal fires — and the step's
 * checkpoint is then refused by the fence. Also polls the cancel marker on each tick.
 */
export class LeaseKeeper {
  readonly #controller = new AbortController();
  readonly #loops: BackgroundLoop[] = [];
  readonly #clock: Clock;
  #cancelRequested = false;

  constructor(
    private readonly held: HeldWork,
    private readonly options: LeaseKeeperOptions,
  ) {
    this.#clock = options.clock ?? systemClock;
    this.#every(Math.max(50, Math.floor(options.leaseTtlMs / 3)), () => this.#renewLease());
    // An operator's cancel should land within a second, not a third of the lease TTL.
    this.#every(CANCEL_POLL_MS, () => this.#pollCancel());
    this.#every(Math.max(50, Math.floor(options.visibilityTimeoutMs / 3)), () =>
      this.#renewMessage(),
    );
  }

  /** Fires on lease loss, message loss or a cancel request seen on a tick. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelRequested(): boolean {
    return this.#cancelRequested;
  }

  /** Cancels the work in hand: the running node's signal fires. */
  markCancelRequested(): void {
    this.#cancelRequested = true;
    this.#abort(
      new CancelRequestedError('cancelled by request', { executionId: this.held.executionId }),
    );
  }

  /** Throws the loss reason when the lease or the message was lost. */
  throwIfLost(): void {
    const reason: unknown = this.#controller.signal.reason;
    if (
      this.#controller.signal.aborted &&
      (reason instanceof LeaseLostError || reason instanceof WorkerStoppedError)
    )
      throw reason;
  }

  /**
   * The worker gives up the work in hand (its drain timed out): renewals stop and the node's
   * signal fires with a WorkerStoppedError, so the handling ends without writing anything more
   * (not even at its last delivery: see decide.ts), and the message is left for redelivery.
   */
  abandon(reason: string): void {
    this.stop();
    this.#abort(new WorkerStoppedError(reason, { executionId: this.held.executionId }));
  }

  /** No renewal starts after this; one in flight ends by itself (its answer is not waited for). */
  stop(): void {
    for (const loop of this.#loops) void loop.stop();
  }

  /**
   * Runs `tick` every `ms` until stopped; a tick still running when the next falls due is not
   * started twice (that beat is skipped). Each tick handles its own failures.
   */
  #every(ms: number, tick: () => Promise<void>): void {
    const loop = new BackgroundLoop(tick, {
      name: 'the lease keeper',
      log: this.options.log,
      intervalMs: ms,
      pace: 'fixed-rate',
      clock: this.#clock,
    });
    this.#loops.push(loop.start());
  }

  async #renewLease(): Promise<void> {
    const { executionId } = this.held;
    try {
      if (!(await this.held.renewLease())) return this.#lose(`lease of ${executionId} was lost`);
    } catch (error) {
      // A failed renewal is not yet a loss: the lease is valid until its TTL. The next tick retries.
      this.options.log.warn({ executionId, err: error }, 'lease renewal failed');
    }
  }

  async #pollCancel(): Promise<void> {
    if (this.#cancelRequested) return;
    try {
      if (await this.held.isCancelRequested()) this.markCancelRequested();
    } catch (error) {
      this.options.log.warn(
        { executionId: this.held.executionId, err: error },
        'cancel poll failed',
      );
    }
  }

  async #renewMessage(): Promise<void> {
    const { messageId } = this.held;
    try {
      if (!(await this.held.renewMessage()))
        this.#lose(`message ${messageId} was reclaimed by another consumer`);
    } catch (error) {
      this.options.log.warn({ messageId, err: error }, 'message visibility renewal failed');
    }
  }

  #lose(message: string): void {
    this.#abort(new LeaseLostError(message, { executionId: this.held.executionId }));
  }

  /** The first reason wins: the signal keeps why the work was stopped first. */
  #abort(reason: Error): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}

/** The keeper's view of a lease in `store` and a delivery claimed by `consumer` from `queue`. */
export function heldWork(
  store: ExecutionStore,
  queue: TaskQueue,
  lease: Lease,
  delivery: Delivery,
  consumer: string,
  leaseTtlMs: number,
): HeldWork {
  const { executionId, tenantId, owner, generation } = lease;
  return {
    executionId,
    messageId: delivery.id,
    renewLease: () =>
      store.renewLease(executionId, { tenantId, owner, generation, ttlMs: leaseTtlMs }),
    renewMessage: () => queue.renew(delivery, consumer),
    isCancelRequested: () => store.isCancelRequested(executionId, { tenantId }),
  };
}
