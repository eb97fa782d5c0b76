import type { TaskQueue } from '../../../queue/task-queue.js';
import { parseTaskMessage } from '../../../queue/task-message.js';
import type { RedisStreamQueue } from './redis-stream-queue.js';
import type { QueueStats } from './stream-partition.js';

export interface DrainOptions {
  /** The consumer name the drain reads the old queue as (default `plaita-drain`). */
  consumer?: string;
  /** Messages and timers moved per round (default 200). */
  batch?: number;
}

export interface DrainReport {
  /** Ready messages (and expired in-flight ones) moved to the target. */
  moved: number;
  /** Delayed messages moved to the target, same timer id and due time. */
  timers: number;
  /**
   * Messages of the old queue that cannot be parsed: ready ones dead-lettered there
   * (`malformed`, as a worker would), timers left waiting there.
   */
  malformed: number;
  /** What the old queue still holds: in-flight messages not expired yet, and dead letters. */
  left: QueueStats;
}

/**
 * The switch step of changing a queue's partition count (docs/scaling.md, "Adding partitions"):
 * moves every message the `from` queue still holds into `to` — ready ones, in-flight ones whose
 * visibility timeout expired (their worker is gone), and waiting timers — then reports what is
 * left. Call it again until `left` shows nothing ready, in flight or delayed.
 *
 * Never loses a message: each is written to `to` first and removed from `from` after (a ready
 * one acknowledged, a timer cancelled). A crash in between leaves it in both: a timer is
 * scheduled again under the same id (a no-op: its id is its dedupId), a ready message is
 * delivered twice — at-least-once, what the worker's leases and fences are for. Moved messages
 * start again at delivery 1 (the node attempt counts in the execution record still bound
 * crash loops). Dead letters stay in `from`: replay them there before the last drain.
 */
export async function drainQueue(
  from: RedisStreamQueue,
  to: TaskQueue,
  options: DrainOptions = {},
): Promise<DrainReport> {
  const consumer = options.consumer ?? 'plaita-drain';
  const batch = Math.max(1, Math.floor(options.batch ?? 200));
  let moved = 0;
  let timers = 0;
  let malformed = 0;
  for (;;) {
    const deliveries = await from.receive(consumer, { max: batch, blockMs: 0 });
    if (deliveries.length === 0) break;
    for (const delivery of deliveries) {
      if (!delivery.parsed.ok) {
        await from.deadLetter(delivery, 'malformed', delivery.parsed.reason);
        malformed++;
        continue;
      }
      await to.enqueue(delivery.parsed.message);
      await from.ack(delivery);
      moved++;
    }
  }
  // A timer that cannot be parsed stays where it is (counted in `left.delayed`): read past it.
  const unparsable = new Set<string>();
  for (;;) {
    const waiting = (await from.delayedTimers(batch + unparsable.size)).filter(
      (timer) => !unparsable.has(timer.id),
    );
    if (waiting.length === 0) break;
    for (const timer of waiting) {
      const parsed = parseTaskMessage(timer.payload);
      if (!parsed.ok) {
        unparsable.add(timer.id);
        malformed++;
        continue;
      }
      const delayMs = Math.max(1, timer.dueMs - Date.now());
      await to.enqueue(parsed.message, { delayMs, dedupId: timer.id });
      await from.cancelDelayed(timer.id);
      timers++;
    }
  }
  return { moved, timers, malformed, left: await from.stats() };
}
