import { CancelRequestedError, LeaseLostError } from '../errors.js';
import type { Delivery, TaskQueue } from '../queue/task-queue.js';
import type { ExecutionStore, Lease } from '../store/execution-store.js';
import type { Logger } from '../util/logger.js';

const CANCEL_POLL_MS = 1_000;

/**
 * Keeps what a worker holds while it works: the execution's lease (renewed every third of
 * its TTL) and the message's invisibility (renewed every third of the visibility timeout).
 * Losing either aborts the work (`signal`) — the node's AbortSignal fires — and the step's
 * checkpoint is then refused by the fence. Also polls the cancel marker on each tick.
 */
export class LeaseKeeper {
  readonly #controller = new AbortController();
  readonly #timers: NodeJS.Timeout[] = [];
  #cancelRequested = false;

  constructor(
    private readonly store: ExecutionStore,
    private readonly queue: TaskQueue,
    readonly lease: Lease,
    private readonly delivery: Delivery,
    private readonly consumer: string,
    private readonly options: { leaseTtlMs: number; visibilityTimeoutMs: number; log: Logger },
  ) {
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
    if (!this.#controller.signal.aborted)
      this.#controller.abort(
        new CancelRequestedError('cancelled by request', { executionId: this.lease.executionId }),
      );
  }

  /** Throws the loss reason when the lease or the message was lost. */
  throwIfLost(): void {
    const reason: unknown = this.#controller.signal.reason;
    if (this.#controller.signal.aborted && reason instanceof LeaseLostError) throw reason;
  }

  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
  }

  #every(ms: number, tick: () => Promise<void>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void tick().finally(() => (running = false));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  async #renewLease(): Promise<void> {
    const { lease } = this;
    try {
      const held = await this.store.renewLease(lease.executionId, {
        tenantId: lease.tenantId,
        owner: lease.owner,
        generation: lease.generation,
        ttlMs: this.options.leaseTtlMs,
      });
      if (!held) return this.#lose(`lease of ${lease.executionId} was lost`);
    } catch (error) {
      // A failed renewal is not yet a loss: the lease is valid until its TTL. The next tick retries.
      this.options.log.warn({ executionId: lease.executionId, err: error }, 'lease renewal failed');
    }
  }

  async #pollCancel(): Promise<void> {
    if (this.#cancelRequested) return;
    const { executionId, tenantId } = this.lease;
    try {
      if (await this.store.isCancelRequested(executionId, { tenantId })) this.markCancelRequested();
    } catch (error) {
      this.options.log.warn({ executionId, err: error }, 'cancel poll failed');
    }
  }

  async #renewMessage(): Promise<void> {
    try {
      if (!(await this.queue.renew(this.delivery, this.consumer)))
        this.#lose(`message ${this.delivery.id} was reclaimed by another consumer`);
    } catch (error) {
      this.options.log.warn(
        { messageId: this.delivery.id, err: error },
        'message visibility renewal failed',
      );
    }
  }

  #lose(message: string): void {
    if (!this.#controller.signal.aborted)
      this.#controller.abort(new LeaseLostError(message, { executionId: this.lease.executionId }));
  }
}
