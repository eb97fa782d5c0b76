import type { Delivery } from '../../../queue/task-queue.js';

/** One partition's blocking read for one consumer: `count` entries, BLOCK `waitMs` (≥ 1). */
export type BlockingRead = (
  partition: number,
  consumer: string,
  count: number,
  waitMs: number,
) => Promise<Delivery[]>;

/**
 * Waiting for a new message on several partitions at once. Each partition's stream has its own
 * slot (on a cluster, possibly its own node), so one XREADGROUP cannot block on all of them:
 * each partition gets its own blocking read, on its own blocking connection, at most one per
 * (consumer, partition) at a time.
 *
 * A blocked XREADGROUP cannot be taken back: when one partition answers, the reads on the
 * others go on until they answer or time out (never past the deadline of the receive that
 * started them). What they read is already pending under the consumer, so it is kept here and
 * handed to that consumer's next `receive` first. A process that closes or dies with entries
 * kept here loses nothing: they are pending in Redis and come back after the visibility
 * timeout, like any message of a dead consumer.
 */
export class PartitionWaits {
  readonly #kept = new Map<string, { delivery: Delivery; at: number }[]>();
  readonly #reading = new Map<string, Promise<void>>();
  readonly #wakers = new Set<() => void>();
  #failure: Error | undefined;

  /** `keepMs`: a kept delivery older than this is dropped (see {@link take}). */
  constructor(
    private readonly partitions: number,
    private readonly read: BlockingRead,
    private readonly keepMs: number,
  ) {}

  /**
   * Up to `max` deliveries kept for `consumer` by reads that answered after their receive.
   * One kept longer than `keepMs` (half the visibility timeout) is dropped, not handed out: it
   * may be reclaimed by another consumer soon, and is redelivered after its timeout anyway.
   */
  take(consumer: string, max: number): Delivery[] {
    const kept = this.#kept.get(consumer);
    if (!kept) return [];
    const fresh = Date.now() - this.keepMs;
    const taken = kept
      .splice(0, max)
      .filter((k) => k.at >= fresh)
      .map((k) => k.delivery);
    if (kept.length === 0) this.#kept.delete(consumer);
    return taken;
  }

  /**
   * Blocks on every partition until one delivers (then returns at most `count`), the
   * deadline passes (returns empty) or `stopped()` (returns empty). A failed read rejects the
   * wait with its error when nothing was delivered.
   */
  async wait(
    consumer: string,
    count: number,
    deadline: number,
    stopped: () => boolean,
  ): Promise<Delivery[]> {
    this.#failure = undefined;
    for (;;) {
      const got = this.take(consumer, count);
      if (got.length > 0 || stopped()) return got;
      const failure = this.#takeFailure();
      if (failure) throw failure;
      const waitMs = deadline - Date.now();
      if (waitMs < 1) return [];
      for (let p = 0; p < this.partitions; p++) this.#start(consumer, p, count, waitMs);
      await this.#next(waitMs);
    }
  }

  /** The error of a read that failed since the last call, once. */
  #takeFailure(): Error | undefined {
    const failure = this.#failure;
    this.#failure = undefined;
    return failure;
  }

  #start(consumer: string, partition: number, count: number, waitMs: number): void {
    const key = `${partition}\u0000${consumer}`;
    if (this.#reading.has(key)) return;
    const reading = this.read(partition, consumer, count, Math.floor(waitMs))
      .then(
        (deliveries) => {
          if (deliveries.length === 0) return;
          const kept = this.#kept.get(consumer) ?? [];
          const at = Date.now();
          for (const delivery of deliveries) kept.push({ delivery, at });
          this.#kept.set(consumer, kept);
        },
        (error: unknown) => {
          this.#failure = error instanceof Error ? error : new Error(String(error));
        },
      )
      .finally(() => {
        this.#reading.delete(key);
        this.#wake();
      });
    this.#reading.set(key, reading);
  }

  /** Resolves when any read ends or after `waitMs`. */
  #next(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.#wakers.add(done);
    });
  }

  #wake(): void {
    for (const waker of [...this.#wakers]) waker();
  }
}
